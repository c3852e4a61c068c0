import { describe, expect, it } from 'vitest';
import { TOKEN_KEY_BYTES, tokenHmac } from '../../lib/archive/records/tokenHmac.ts';
import { OTHER_TOKEN_KEY, TEST_TOKEN_KEY } from './historyRecords.ts';

describe('tokenHmac', () => {
  it('is HMAC-SHA256 of the UTF-8 token under the raw key bytes, as openssl (and Athena from_hex) compute it', () => {
    // printf 'AAXXYY99F' | openssl dgst -sha256 -mac HMAC -macopt hexkey:0102…1f20
    expect(Buffer.from(TEST_TOKEN_KEY).toString('hex')).toBe(
      '0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20',
    );
    expect(tokenHmac(TEST_TOKEN_KEY, 'AAXXYY99F')).toBe(
      'dcb3f006dcf458e376df6e1851c531be7f63dc491d95bd3f0b523700bb974a6f',
    );
  });

  it('depends on the key', () => {
    expect(tokenHmac(TEST_TOKEN_KEY, 'tok')).not.toBe(tokenHmac(OTHER_TOKEN_KEY, 'tok'));
  });

  it.each([0, 16, 31, 33, 64])('refuses a %i-byte key with CONFIG_INVALID', (length) => {
    expect(() => tokenHmac(new Uint8Array(length), 'tok')).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining(`${TOKEN_KEY_BYTES} bytes`),
      }),
    );
  });
});
