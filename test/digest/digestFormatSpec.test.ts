import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import {
  DIGEST_FORMAT_VERSION,
  DIGEST_SPEC_REVISION,
  digestFileSchema,
  digestSchema,
  signedBytes,
} from '../../lib/archive/digest/digestSchema.ts';
import { TOKEN_KEY_CHECK_INPUT } from '../../lib/archive/keys/checkArchiveKeys.ts';
import { canonicalJson } from '../../lib/archive/records/canonicalJson.ts';

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

const SCRIPT = readFileSync(new URL('../../docs/verify-by-hand.sh', import.meta.url), 'utf8');
/** The member names of a spec table that starts at `heading`'s first table (first column, in backticks). */
function tableMembers(after: string): string[] {
  const at = SPEC.indexOf(after);
  const table = /(?:^\|.*\n)+/m.exec(SPEC.slice(at))?.[0] ?? '';
  return [...table.matchAll(/^\| `([A-Za-z0-9]+)` /gm)].map((m) => m[1] as string).sort();
}

describe('docs/digest-format.md and verify-by-hand.sh name what the code checks, from one list', () => {
  it('carries the specification revision the code declares, in the spec and the script', () => {
    expect(SPEC).toMatch(new RegExp(`^Specification revision ${DIGEST_SPEC_REVISION}\\.$`, 'm'));
    expect(SCRIPT).toContain(`specification revision ${DIGEST_SPEC_REVISION}`);
  });

  it('lists the prefixes every digest accounts for: the spec’s layout and the script’s listing', () => {
    const row =
      /^\| (`[a-z]+\/`(?:, `[a-z]+\/`)*) +\|/m.exec(SPEC.slice(SPEC.indexOf('## 1. Layout')))?.[1] ?? '';
    expect(row.replace(/`/g, '').split(', ')).toEqual([...digestKeys.listedPrefixes].sort(byListing));
    const loop = /^for file in ((?:[a-z]+\/\*\* ?)+); do/m.exec(SCRIPT)?.[1] ?? '';
    expect(loop.trim().split(' ')).toEqual(digestKeys.listedPrefixes.map((p) => `${p}**`));
  });

  it('names every data set a listed file may belong to', () => {
    const line = /^\| `dataset` .*$/m.exec(SPEC)?.[0] ?? '';
    expect([...line.matchAll(/`([a-z]+)`/g)].map((m) => m[1]).slice(1)).toEqual(
      digestFileSchema.shape.dataset.options,
    );
  });

  it('the members of a digest and of a listed file are the schema’s, in the spec and in the script', () => {
    const digestMembers = Object.keys(digestSchema.shape).sort();
    const fileMembers = Object.keys(digestFileSchema.shape).sort();
    expect(tableMembers('## 2. A digest')).toEqual(digestMembers);
    expect(tableMembers('A listed file (`files[i]`)')).toEqual(fileMembers);
    expect(JSON.parse(/^members='(.*)'$/m.exec(SCRIPT)?.[1] ?? '')).toEqual(digestMembers);
    expect(JSON.parse(/^file_members='(.*)'$/m.exec(SCRIPT)?.[1] ?? '')).toEqual(fileMembers);
  });

  it('gives the signed bytes as jq -jcS, never with the newline jq -cS adds', () => {
    expect(SPEC).toContain("jq -jcS 'del(.signature)'");
    expect(SPEC).not.toMatch(/`jq -cS 'del/);
    expect(SCRIPT).toContain("jq -jcS 'del(.signature)'");
  });

  it('gives the token-key check’s constant as the code uses it', () => {
    expect(SPEC).toContain(`constant \`${TOKEN_KEY_CHECK_INPUT}\``);
    expect(SPEC).toContain(`printf %s '${TOKEN_KEY_CHECK_INPUT}'`);
  });
});

/** The order the spec’s table names them: data sets first, quarantine last. */
function byListing(a: string, b: string): number {
  return digestKeys.listedPrefixes.indexOf(a as never) - digestKeys.listedPrefixes.indexOf(b as never);
}
