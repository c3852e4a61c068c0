import { ArchiverError } from '../../lib/errors/archiverError.ts';

/**
 * The 32-byte token HMAC key from a secret's value: 64 hex digits or base64 of 32 bytes. The error
 * names the secret and never carries the value.
 */
export function tokenKeyFromSecret(value: string | Uint8Array | undefined, secretId: string): Uint8Array {
  const text =
    typeof value === 'string'
      ? value.trim()
      : value === undefined
        ? ''
        : Buffer.from(value).toString('utf8').trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (bytes.byteLength !== 32) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `secret '${secretId}' must hold a 32-byte token key as 64 hex digits or base64`,
    );
  }
  return new Uint8Array(bytes);
}
