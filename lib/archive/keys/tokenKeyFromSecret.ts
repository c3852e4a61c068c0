import { createHash } from 'node:crypto';
import { ArchiverError } from '../../foundation/index.ts';

/**
 * The 32-byte token HMAC key from the secret the stack generates: SHA-256 of the secret string. The
 * secret is random text (Secrets Manager's generator), so hashing it gives a uniform key of the right
 * size, and anyone holding the secret can derive the same key to query the archive (see docs/operations.md).
 */
export function tokenKeyFromSecret(value: string | Uint8Array | undefined, secretId: string): Uint8Array {
  if (typeof value !== 'string' || value.trim().length < 32) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `Secret '${secretId}' does not hold a token key (a string of at least 32 characters); restore it from its backup, never replace it with a new one`,
    );
  }
  return new Uint8Array(createHash('sha256').update(value.trim(), 'utf8').digest());
}
