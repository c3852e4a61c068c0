import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../lib/archive/digest/digestSigner.ts';
import { LOCAL_KEY_FILES, loadLocalKeys, localKeysDir } from '../../lib/archive/keys/loadLocalKeys.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

let dest: string;
beforeEach(async () => {
  dest = await mkdtemp(join(tmpdir(), 'ta-keys-'));
});
afterEach(async () => {
  await rm(dest, { recursive: true, force: true });
});

describe('loadLocalKeys', () => {
  it('creates a 32-byte token key and an Ed25519 signing key once, in a 0700 folder of 0600 files beside .state', async () => {
    const dir = localKeysDir(dest);
    expect(dir).toBe(join(dest, '.keys'));
    const first = await loadLocalKeys(dir);
    expect(first.tokenKey.byteLength).toBe(32);
    expect(first.signer.algorithm).toBe('ed25519');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const name of Object.values(LOCAL_KEY_FILES)) {
      expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    }
    expect((await readdir(dir)).sort()).toEqual(Object.values(LOCAL_KEY_FILES).sort());

    const again = await loadLocalKeys(dir);
    expect(Buffer.from(again.tokenKey).equals(Buffer.from(first.tokenKey))).toBe(true);
    expect(again.signer.keyId).toBe(first.signer.keyId);
  });

  it('gives every concurrent caller the same keys (created once, never overwritten)', async () => {
    const dir = localKeysDir(dest);
    const all = await Promise.all(Array.from({ length: 6 }, () => loadLocalKeys(dir)));
    expect(new Set(all.map((k) => Buffer.from(k.tokenKey).toString('hex'))).size).toBe(1);
    expect(new Set(all.map((k) => k.signer.keyId)).size).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(Object.values(LOCAL_KEY_FILES).sort());
  });

  it('signs what verifySignature accepts under its public key, and nothing else', async () => {
    const { signer } = await loadLocalKeys(localKeysDir(dest));
    const data = new TextEncoder().encode('digest body');
    const signature = await signer.sign(data);
    const publicKeyPem = await signer.publicKeyPem();
    expect(verifySignature({ algorithm: 'ed25519', publicKeyPem, data, signature })).toBe(true);
    const other = new TextEncoder().encode('digest bodY');
    expect(verifySignature({ algorithm: 'ed25519', publicKeyPem, data: other, signature })).toBe(false);
  });

  it('refuses a damaged token key file instead of replacing it', async () => {
    const dir = localKeysDir(dest);
    await loadLocalKeys(dir);
    await writeFile(join(dir, LOCAL_KEY_FILES.tokenKey), 'short');
    const error = await loadLocalKeys(dir).catch((e: unknown) => e);
    expect(ArchiverError.is(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain('restore it from your backup');
  });
});
