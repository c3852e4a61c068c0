import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256OfBytes } from '../../lib/archive/digest/describeDataFile.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { type Digest, type DigestBody, signedBytes } from '../../lib/archive/digest/digestSchema.ts';
import { ed25519Signer } from '../../lib/archive/digest/ed25519Signer.ts';
import type { ChainEntry, DigestChain } from '../../lib/archive/digest/readDigestChain.ts';
import { checkChain } from '../../lib/integrity/verify/checkChain.ts';
import { classifyAbsent } from '../../lib/integrity/verify/lastScans.ts';

const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const signer = ed25519Signer(pem);
const publicKeyPem = await signer.publicKeyPem();

/** A valid chain of `n` signed digests, as `readDigestChain` would return it. */
async function chainOf(n: number): Promise<DigestChain> {
  const entries: ChainEntry[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const prev = entries.at(-1);
    const body: DigestBody = {
      format: 1,
      seq,
      runId: `r${seq}`,
      createdAt: new Date(Date.UTC(2026, 10, seq)).toISOString(),
      keyId: signer.keyId,
      algorithm: signer.algorithm,
      previous: prev ? { key: prev.key, sha256: prev.sha256 } : null,
      scans: [],
      files: [],
    };
    const digest: Digest = {
      ...body,
      signature: Buffer.from(await signer.sign(signedBytes(body))).toString('base64'),
    };
    entries.push(entry(digest));
  }
  return {
    entries,
    strays: [],
    publicKey: {
      pem: publicKeyPem,
      info: { keyId: signer.keyId, algorithm: 'ed25519', publishedAt: '2026-11-01T00:00:00.000Z' },
    },
  };
}

function entry(digest: Digest): ChainEntry {
  const bytes = new TextEncoder().encode(JSON.stringify(digest));
  return {
    key: digestKeys.digest(digest.seq),
    seq: digest.seq,
    sha256: sha256OfBytes(bytes),
    digest,
    stored: JSON.parse(JSON.stringify(digest)) as Record<string, unknown>,
  };
}

describe('checkChain', () => {
  it('accepts every intact chain', async () => {
    for (const n of [1, 2, 5]) expect(checkChain(await chainOf(n))).toEqual([]);
  });

  it('checks the signature over the JSON as stored: a member a parsed copy lacks still fails it', async () => {
    const chain = await chainOf(2);
    const second = chain.entries[1] as ChainEntry;
    second.stored = { ...(second.digest as Digest), note: 'added after signing' };
    expect(checkChain(chain)).toEqual([
      expect.objectContaining({ kind: 'signature', object: digestKeys.digest(2) }),
    ]);
  });

  it('refuses a signature spelt in another base64 (unpadded, broken over lines) although its bytes verify', async () => {
    for (const spell of [
      (s: string) => s.replace(/=+$/, ''),
      (s: string) => `${s.slice(0, 8)}\n${s.slice(8)}`,
    ]) {
      const chain = await chainOf(1);
      const first = chain.entries[0] as ChainEntry;
      const digest = first.digest as Digest;
      first.digest = { ...digest, signature: spell(digest.signature) };
      first.stored = { ...first.digest };
      expect(checkChain(chain)).toEqual([
        expect.objectContaining({
          kind: 'signature',
          object: digestKeys.digest(1),
          message: expect.stringContaining('base64'),
        }),
      ]);
    }
  });

  it('reports an empty chain as a failure (a wrong --dest must not verify OK)', () => {
    expect(checkChain({ entries: [], strays: [] })).toEqual([
      expect.objectContaining({ kind: 'chain', object: digestKeys.digest(1) }),
    ]);
  });

  it('names the removed digest, wherever it was in the chain (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 8 }), fc.nat(), async (n, pick) => {
        const chain = await chainOf(n);
        const k = (pick % (n - 1)) + 1; // any digest but the last (whose loss only unlisted files show)
        chain.entries = chain.entries.filter((e) => e.seq !== k);
        const failures = checkChain(chain);
        expect(failures).toContainEqual(
          expect.objectContaining({ kind: 'chain', object: digestKeys.digest(k) }),
        );
      }),
      { numRuns: 25 },
    );
  });

  it('names an edited digest by its signature, and its successor by the broken link (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.nat(),
        fc.string({ minLength: 1 }),
        async (n, pick, runId) => {
          const chain = await chainOf(n);
          const k = (pick % n) + 1;
          const original = chain.entries[k - 1]?.digest as Digest;
          fc.pre(runId !== original.runId);
          chain.entries[k - 1] = entry({ ...original, runId });
          const failures = checkChain(chain);
          expect(failures).toContainEqual(
            expect.objectContaining({ kind: 'signature', object: digestKeys.digest(k) }),
          );
          if (k < n)
            expect(failures).toContainEqual(
              expect.objectContaining({ kind: 'chain', object: digestKeys.digest(k + 1) }),
            );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('rejects a chain signed by another key than the published one', async () => {
    const chain = await chainOf(2);
    const other = ed25519Signer(
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    chain.publicKey = {
      pem: await other.publicKeyPem(),
      info: { keyId: other.keyId, algorithm: 'ed25519', publishedAt: '' },
    };
    expect(checkChain(chain).map((f) => f.kind)).toEqual(['signature', 'signature']);
  });
});

describe('classifyAbsent', () => {
  const scan = Date.parse('2026-11-20T12:00:00Z');
  it.each([
    ['never scanned', Date.parse('2026-11-20T10:00:00Z'), undefined, 0, 'pending'],
    ['ended after the last scan', scan + 1, scan, 0, 'pending'],
    ['ended before the last scan', scan - 1, scan, 0, 'missing'],
    ['ended before the scan, within the ingestion grace', scan - 1000, scan, 5000, 'pending'],
    ['still open (no end)', null, scan, 0, 'pending'],
  ] as const)('%s -> %s', (_name, end, last, grace, expected) => {
    expect(classifyAbsent(end, last, grace)).toBe(expected);
  });
});
