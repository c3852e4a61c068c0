import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ArchiverError } from '../../foundation/index.ts';
import { LOCAL_KEY_FILES, TOKEN_KEY_BYTES } from './loadLocalKeys.ts';

/** Reads (never creates) the token key of a keys folder: for read-only uses such as `verify`. */
export async function readTokenKey(dir: string): Promise<Uint8Array> {
  const file = path.join(dir, LOCAL_KEY_FILES.tokenKey);
  const bytes = await readFile(file).catch(() => undefined);
  if (!bytes || bytes.byteLength !== TOKEN_KEY_BYTES) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `comparing with the API needs the archive's token key at ${file} (record ids are keyed): set --keys-dir, or verify without TUNNEL_API_KEY to check the archive alone`,
    );
  }
  return new Uint8Array(bytes);
}
