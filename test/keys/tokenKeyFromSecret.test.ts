import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tokenKeyFromSecret } from '../../lib/archive/keys/tokenKeyFromSecret.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

describe('tokenKeyFromSecret', () => {
  it('derives the 32-byte key as SHA-256 of the generated secret string (what the README tells key holders)', () => {
    const secret = 'a'.repeat(64);
    const key = tokenKeyFromSecret(secret, 'id');
    expect(key.byteLength).toBe(32);
    expect(Buffer.from(key).toString('hex')).toBe(createHash('sha256').update(secret).digest('hex'));
  });

  it.each([
    ['no value', undefined],
    ['a binary value', new Uint8Array(64)],
    ['a short string', 'short'],
  ])('refuses %s without echoing it, and says never to replace the key', (_name, value) => {
    try {
      tokenKeyFromSecret(value, 'tunnel/token-key');
      expect.unreachable();
    } catch (error) {
      expect(ArchiverError.is(error, 'CONFIG_INVALID')).toBe(true);
      expect((error as Error).message).toContain('tunnel/token-key');
      expect((error as Error).message).toContain('never replace');
      if (typeof value === 'string') expect((error as Error).message).not.toContain(value);
    }
  });
});
