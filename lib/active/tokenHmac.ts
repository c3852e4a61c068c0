import { createHmac } from 'node:crypto';

/**
 * Lower-case hex HMAC-SHA256 of a token value. The one place active rows hash tokens: it must give the
 * same digest as history's token columns (lib/records), so the naming view can join the two.
 */
export function tokenHmac(value: string, tokenKey: Uint8Array): string {
  return createHmac('sha256', tokenKey).update(value, 'utf8').digest('hex');
}
