import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import { ed25519Signer } from '../../lib/archive/digest/ed25519Signer.ts';
import { checkArchiveKeys } from '../../lib/archive/keys/checkArchiveKeys.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { parquetOf } from './digestFixtures.ts';

const SPEC = readFileSync(new URL('../../docs/digest-format.md', import.meta.url), 'utf8');

/** The shell block that follows `<!-- recipe: NAME -->` in the spec, as written. */
function recipe(name: string): string {
  const block = new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(SPEC)?.[1];
  if (!block) throw new Error(`docs/digest-format.md has no recipe ${name}`);
  return block;
}

/** ECDSA P-256 over SHA-256, DER: what the KMS signer produces, without KMS. */
function ecdsaSigner(): DigestSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    keyId: 'arn:aws:kms:us-east-1:000000000000:key/recipe',
    algorithm: 'ECDSA_SHA_256',
    publicKeyPem: async () => publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sign: async (data) => new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'der' })),
  };
}

let dir: string;
const archives = { ed25519: '', ECDSA_SHA_256: '' };
const tokenKey = new Uint8Array(32).map((_, i) => i * 7 + 1);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-recipe-'));
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  for (const [name, signer] of [
    ['ed25519', ed25519Signer(pem)],
    ['ECDSA_SHA_256', ecdsaSigner()],
  ] as const) {
    const root = join(dir, name);
    archives[name] = root;
    const objects = createFileObjectStore(root);
    const deps = {
      objects,
      signer,
      clock: new ManualClock('2026-11-22T10:00:00.000Z'),
      logger: silentLogger,
    };
    await checkArchiveKeys(objects, { tokenKey, signer });
    mkdirSync(join(root, '.keys'));
    writeFileSync(join(root, '.keys/token-hmac.key'), tokenKey);
    await objects.put('history/dt=2026-11-20/a.parquet', await parquetOf([1, 2, 3]));
    await appendDigest(deps, { runId: 'r1', scans: [] });
    await objects.put('findings/dt=2026-11-21/f.parquet', await parquetOf([4]));
    await appendDigest(deps, {
      runId: 'r2',
      scans: [{ day: '2026-11-21', scannedAt: '2026-11-22T09:00:00.000Z', complete: true }],
    });
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runIn(cwd: string, script: string) {
  const r = spawnSync('bash', ['-e', '-c', script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' },
  });
  return { code: r.status, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe('the recipes of docs/digest-format.md, run as written', () => {
  it('the signature recipe verifies digest 2 of a real Ed25519 archive, and fails on an edited one', () => {
    const ok = runIn(archives.ed25519, recipe('signature'));
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain('Signature Verified Successfully');
    const file = join(archives.ed25519, 'digests/0000000002.json');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"runId": "r2"', '"runId": "r3"'));
    try {
      expect(runIn(archives.ed25519, recipe('signature')).code).not.toBe(0);
    } finally {
      writeFileSync(file, text);
    }
  });

  it('with the ECDSA_SHA_256 last line the spec gives, it verifies a KMS-style archive', () => {
    const line = /`ECDSA_SHA_256` the last\nline is `([^`]+)`/.exec(SPEC)?.[1];
    expect(line).toBeDefined();
    const lines = recipe('signature').trimEnd().split('\n');
    const script = [...lines.slice(0, -1), line].join('\n');
    const ok = runIn(archives.ECDSA_SHA_256, script);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain('Verified OK');
  });

  it('the token-key recipe prints the tokenKeyCheck the archiver recorded', () => {
    const r = runIn(archives.ed25519, recipe('token-key-check'));
    expect(r.code, r.err).toBe(0);
    const recorded = JSON.parse(readFileSync(join(archives.ed25519, 'digests/key-check.json'), 'utf8')) as {
      tokenKeyCheck: string;
    };
    expect(r.out.trim()).toBe(recorded.tokenKeyCheck);
    writeFileSync(join(archives.ed25519, '.keys/token-hmac.key'), new Uint8Array(32));
    expect(runIn(archives.ed25519, recipe('token-key-check')).out.trim()).not.toBe(recorded.tokenKeyCheck);
  });
});
