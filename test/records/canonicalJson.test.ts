import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lib/archive/records/canonicalJson.ts';

/** The definition the archive's ids were first written with: a sorted copy through `JSON.stringify`. */
function sortedStringify(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map((item) => (item === undefined ? null : sort(item)));
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) {
        const member = (v as Record<string, unknown>)[key];
        if (member !== undefined)
          Object.defineProperty(out, key, { value: sort(member), enumerable: true, writable: true });
      }
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value)) ?? 'null';
}

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
    {
      name: 'writes a Date as its ISO text and non-finite numbers as null',
      value: { at: new Date(0), n: [Number.NaN, -0, 1e21] },
      json: '{"at":"1970-01-01T00:00:00.000Z","n":[null,0,1e+21]}',
    },
    {
      name: 'writes array-index keys first, in numeric order, as an object built from sorted keys enumerates them',
      value: { b: 1, '10': 2, '': 3, '9': 4, '01': 5, '4294967295': 6 },
      json: '{"9":4,"10":2,"":3,"01":5,"4294967295":6,"b":1}',
    },
    { name: 'writes empty containers', value: { a: [], b: {}, c: [{}] }, json: '{"a":[],"b":{},"c":[{}]}' },
  ])('$name', ({ value, json }) => {
    expect(canonicalJson(value)).toBe(json);
  });

  it('writes what a sorted copy through JSON.stringify writes, for any JSON value', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String)), fc.jsonValue()),
        (value, keyed) => {
          expect(canonicalJson(value)).toBe(sortedStringify(value));
          expect(canonicalJson(keyed)).toBe(sortedStringify(keyed));
        },
      ),
    );
  });

  it('writes a value nested 100,000 levels deep without running out of stack', () => {
    const depth = 100_000;
    const value = JSON.parse(`${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`) as unknown;
    const text = canonicalJson(value);
    expect(text.length).toBe(depth * 8 + 1);
    expect(text.startsWith('{"a":[{"a":[')).toBe(true);
  });
});
