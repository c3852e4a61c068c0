import { createHash } from 'node:crypto';
import * as z from 'zod';
import { ArchiverError } from '../../foundation/index.ts';
import { digestKeys } from '../digest/digestKeys.ts';
import type { DigestSigner } from '../digest/digestSigner.ts';
import { tokenHmac } from '../records/tokenHmac.ts';
import type { ObjectStore } from '../store/objectStore.ts';

/** Where the archive records which keys it was written with (fingerprints only, never a key). */
export const KEY_CHECK_KEY = digestKeys.keyCheck;
/** What `tokenKeyCheck` is the HMAC of (UTF-8, under the token key): docs/digest-format.md §7. */
export const TOKEN_KEY_CHECK_INPUT = 'tunnel-archiver/token-key-check/v1';

const keyCheckSchema = z.looseObject({
  tokenKeyCheck: z.string(),
  signingKeySha256: z.string(),
});

/**
 * Refuses to write into an archive with keys other than the ones it was written with: a lost or replaced
 * token key would give every record a new id (all re-archived, nothing matching), and a new signing key
 * would fork the digest chain. The first run records fingerprints (an HMAC of a constant under the token
 * key, the SHA-256 of the public key), write-once; every later run compares before writing anything.
 */
function parseJsonOrUndefined(bytes: Uint8Array | undefined): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes ?? new Uint8Array()));
  } catch {
    return undefined;
  }
}

export async function checkArchiveKeys(
  objects: ObjectStore,
  keys: { tokenKey: Uint8Array; signer: DigestSigner },
): Promise<void> {
  const mine = {
    tokenKeyCheck: tokenHmac(keys.tokenKey, TOKEN_KEY_CHECK_INPUT),
    signingKeySha256: createHash('sha256')
      .update(await keys.signer.publicKeyPem())
      .digest('hex'),
  };
  let bytes = await objects.get(KEY_CHECK_KEY);
  if (!bytes) {
    if (await objects.putIfAbsent(KEY_CHECK_KEY, `${JSON.stringify(mine)}\n`)) return;
    bytes = await objects.get(KEY_CHECK_KEY);
  }
  const stored = keyCheckSchema.safeParse(parseJsonOrUndefined(bytes));
  if (!stored.success) {
    // Only a torn write leaves this (an S3-compatible server that shows half an upload): never guess keys.
    throw new ArchiverError(
      'CONFIG_INVALID',
      `${objects.url}${KEY_CHECK_KEY} is ${bytes?.byteLength ? 'malformed' : 'empty'}: restore it from a backup (see docs/operations.md, "Keys: back them up"); nothing was written`,
    );
  }
  const wrong = [
    stored.data.tokenKeyCheck !== mine.tokenKeyCheck ? 'token key' : undefined,
    stored.data.signingKeySha256 !== mine.signingKeySha256 ? 'digest signing key' : undefined,
  ].filter(Boolean);
  if (wrong.length > 0) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `this archive was written with another ${wrong.join(' and ')}: restore the keys from your backup (see docs/operations.md, "Keys: back them up"); nothing was written`,
      { details: { wrong } },
    );
  }
}
