import { createHash } from 'node:crypto';

/** Lower-case hex SHA-256 of a UTF-8 string (unkeyed: never apply it to a token; see `tokenHmac`). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
