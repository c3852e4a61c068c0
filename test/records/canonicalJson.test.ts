import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lib/records/canonicalJson.ts';

describe('canonicalJson', () => {
  it.each([
    {
      name: 'sorts keys at every depth',
      value: { b: 1, a: { d: 2, c: [3, { f: 1, e: 0 }] } },
      json: '{"a":{"c":[3,{"e":0,"f":1}],"d":2},"b":1}',
    },
    { name: 'keeps array order', value: ['b', 'a'], json: '["b","a"]' },
    {
      name: 'omits undefined members like JSON.stringify',
      value: { a: undefined, b: null },
      json: '{"b":null}',
    },
    { name: 'turns undefined array items into null', value: [undefined, 1], json: '[null,1]' },
    { name: 'serialises a bare undefined as null', value: undefined, json: 'null' },
    { name: 'keeps non-ASCII text as is', value: { 名: 'ü😀' }, json: '{"名":"ü😀"}' },
    {
      name: 'keeps a parsed __proto__ key as data, not as a prototype',
      value: JSON.parse('{"b":1,"__proto__":{"y":2,"x":1}}') as unknown,
      json: '{"__proto__":{"x":1,"y":2},"b":1}',
    },
  ])('$name', ({ value, json }) => {
    expect(canonicalJson(value)).toBe(json);
  });
});
