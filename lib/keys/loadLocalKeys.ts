import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { DigestSigner } from '../digest/digestSigner.ts';
import { ed25519Signer } from '../digest/ed25519Signer.ts';
import { ArchiverError } from '../errors/archiverError.ts';

/** File names inside the keys folder (`<dest>/.keys/`). Back both up: see docs/operations.md. */
export const LOCAL_KEY_FILES = {
  signingKey: 'digest-signing-key.pem',
  tokenKey: 'token-hmac.key',
} as const;

export const TOKEN_KEY_BYTES = 32;

/** The keys folder of a local destination: beside `.state`, never inside it, so losing state keeps keys. */
export function localKeysDir(destDir: string): string {
  return path.join(destDir, '.keys');
}

/**
 * Reads the local keys, creating each one once: a 32-byte token HMAC key and an Ed25519 digest signing
 * key, in `dir` (mode 0700, files 0600). A key is written to a scratch file and hard-linked into place,
 * so it is never half-written and an existing key is never replaced, even by two processes at once.
 */
export async function loadLocalKeys(dir: string): Promise<{ tokenKey: Uint8Array; signer: DigestSigner }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const tokenKey = await readOrCreate(dir, LOCAL_KEY_FILES.tokenKey, () => randomBytes(TOKEN_KEY_BYTES));
  if (tokenKey.byteLength !== TOKEN_KEY_BYTES) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `${path.join(dir, LOCAL_KEY_FILES.tokenKey)} holds ${tokenKey.byteLength} bytes, expected ${TOKEN_KEY_BYTES}: restore it from your backup`,
    );
  }
  const pem = await readOrCreate(dir, LOCAL_KEY_FILES.signingKey, () =>
    Buffer.from(
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    ),
  );
  let signer: DigestSigner;
  try {
    signer = ed25519Signer(Buffer.from(pem).toString('utf8'));
  } catch (cause) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `${path.join(dir, LOCAL_KEY_FILES.signingKey)} is not an Ed25519 private key: restore it from your backup`,
      { cause },
    );
  }
  return { tokenKey: new Uint8Array(tokenKey), signer };
}

async function readOrCreate(dir: string, name: string, make: () => Buffer): Promise<Buffer> {
  const file = path.join(dir, name);
  const existing = await readIfPresent(file);
  if (existing) return existing;
  const tmp = path.join(dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    const fh = await open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(make());
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await link(tmp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    await rm(tmp, { force: true });
  }
  const created = await readIfPresent(file);
  if (!created) throw new ArchiverError('INTERNAL', `could not create ${file}`);
  return created;
}

async function readIfPresent(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
