import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DIGEST_FORMAT_VERSION, signedBytes } from '../../lib/digest/digestSchema.ts';
import { canonicalJson } from '../../lib/records/canonicalJson.ts';

const SPEC = readFileSync(new URL('../../docs/digest-format.md', import.meta.url), 'utf8');
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('docs/digest-format.md is the format the code writes', () => {
  it('specifies the version the writer stamps on every digest', () => {
    expect(SPEC).toMatch(new RegExp(`^# Digest format, version ${DIGEST_FORMAT_VERSION}$`, 'm'));
  });

  it('canonical JSON follows §3: sorted keys, no whitespace, the escapes named, DEL and non-ASCII as themselves', () => {
    const value = { b: 'q"b\\s\b\t\n\f\r\u0001\u001f\u007f é 𝄞', a: [3, null, true], c: { z: 1, y: 2 } };
    expect(canonicalJson(value)).toBe(
      '{"a":[3,null,true],"b":"q\\"b\\\\s\\b\\t\\n\\f\\r\\u0001\\u001f\u007f é 𝄞","c":{"y":2,"z":1}}',
    );
  });

  it('signs the canonical JSON of the digest without its signature member, and nothing else', () => {
    const digest = { format: 1, seq: 2, signature: 'c2ln', previous: null, files: [] } as never;
    expect(new TextDecoder().decode(signedBytes(digest))).toBe(
      '{"files":[],"format":1,"previous":null,"seq":2}',
    );
  });

  it('the README’s integrity section links the specification and shows the script’s one-line use', () => {
    const integrity = README.slice(README.indexOf('## Integrity'), README.indexOf('## Documentation'));
    expect(integrity).toContain('(docs/digest-format.md)');
    expect(integrity).toMatch(/^bash docs\/verify-by-hand\.sh \.\/archive/m);
  });
});
