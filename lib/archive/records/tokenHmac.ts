import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { ArchiverError } from '../../foundation/index.ts';

/** Length of the secret token key in bytes (HMAC-SHA256's block-size-independent recommended minimum). */
export const TOKEN_KEY_BYTES = 32;

const keyObjects = new WeakMap<Uint8Array, KeyObject>();
/** Recent token → HMAC per key: a day holds few distinct tokens, so most records skip the HMAC. */
const recent = new WeakMap<Uint8Array, Map<string, string>>();
const RECENT_MAX = 4_096;

/**
 * The key as a `KeyObject`, checked once per key: a key shorter than {@link TOKEN_KEY_BYTES} is a
 * configuration error, never silently accepted.
 */
export function tokenKeyObject(tokenKey: Uint8Array): KeyObject {
  const cached = keyObjects.get(tokenKey);
  if (cached !== undefined) return cached;
  if (!(tokenKey instanceof Uint8Array) || tokenKey.byteLength !== TOKEN_KEY_BYTES) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `the token key must be exactly ${TOKEN_KEY_BYTES} bytes, got ${tokenKey instanceof Uint8Array ? tokenKey.byteLength : typeof tokenKey}`,
    );
  }
  const key = createSecretKey(tokenKey);
  keyObjects.set(tokenKey, key);
  return key;
}

/**
 * Lower-case hex HMAC-SHA256 of a token value (UTF-8) under the archive's secret token key: the value
 * of the `token_hmac` / `virtual_token_hmac` columns. Without the key nobody can test a guessed token
 * against the archive; with it, a known token's sessions are found in Athena with
 * `WHERE token_hmac = lower(to_hex(hmac_sha256(to_utf8('<token>'), from_hex('<key as hex>'))))`.
 */
export function tokenHmac(tokenKey: Uint8Array, value: string): string {
  let cache = recent.get(tokenKey);
  if (cache === undefined) {
    const key = tokenKeyObject(tokenKey);
    cache = new Map();
    recent.set(tokenKey, cache);
    return remember(cache, value, createHmac('sha256', key).update(value, 'utf8').digest('hex'));
  }
  const known = cache.get(value);
  if (known !== undefined) return known;
  return remember(
    cache,
    value,
    createHmac('sha256', tokenKeyObject(tokenKey)).update(value, 'utf8').digest('hex'),
  );
}

function remember(cache: Map<string, string>, value: string, digest: string): string {
  if (cache.size >= RECENT_MAX) cache.clear();
  cache.set(value, digest);
  return digest;
}
