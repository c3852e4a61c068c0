import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmod, link, lstat, mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ArchiverError } from '../../foundation/index.ts';
import type { DigestSigner } from '../digest/digestSigner.ts';
import { ed25519Signer } from '../digest/ed25519Signer.ts';

/** File names inside the keys folder (see `locateLocalKeys`). Back both up: see docs/operations.md. */
export const LOCAL_KEY_FILES = {
  signingKey: 'digest-signing-key.pem',
  tokenKey: 'token-hmac.key',
} as const;

export const TOKEN_KEY_BYTES = 32;

/**
 * The keys folder inside a local destination (`<dest>/.keys`), where archives made before the per-user
 * default keep their keys; see `locateLocalKeys` for where a CLI run looks.
 */
export function localKeysDir(destDir: string): string {
  return path.join(destDir, '.keys');
}

/**
 * Reads the local keys, creating each one once: a 32-byte token HMAC key and an Ed25519 digest signing
 * key, in `dir` (every folder created 0700, files 0600). A key is written to a scratch file and
 * hard-linked into place, so it is never half-written and an existing key is never replaced, even by two
 * processes at once. An existing folder or key file that others may read (group or other bits set) is
 * tightened to 0700 / 0600, and `warn` says so.
 */
export async function loadLocalKeys(
  dir: string,
  options: { warn?: (message: string) => void } = {},
): Promise<{ tokenKey: Uint8Array; signer: DigestSigner }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await tighten(dir, 0o700, options.warn);
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
  for (const name of Object.values(LOCAL_KEY_FILES)) await tighten(path.join(dir, name), 0o600, options.warn);
  return { tokenKey: new Uint8Array(tokenKey), signer };
}

/** Sets `mode` on a path whose mode lets its group or others in, and says so. */
async function tighten(file: string, mode: number, warn?: (message: string) => void): Promise<void> {
  const current = (await lstat(file)).mode & 0o777;
  if ((current & 0o077) === 0) return;
  await chmod(file, mode);
  warn?.(
    `${file} was readable by others (mode ${current.toString(8).padStart(4, '0')}): set to ${mode.toString(8).padStart(4, '0')}`,
  );
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
