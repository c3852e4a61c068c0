import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ecdsaSignDigest } from '../../devkit/infra/ecdsaSignDigest.ts';
import { verifySignature } from '../../lib/archive/digest/digestSigner.ts';

describe('ecdsaSignDigest (the KMS stub signer)', () => {
  it('signs a SHA-256 digest so that node:crypto verifies it over the whole message', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    for (let i = 0; i < 5; i++) {
      const data = new TextEncoder().encode(`digest ${i}`);
      const signature = ecdsaSignDigest(privateKey, createHash('sha256').update(data).digest());
      expect(verifySignature({ algorithm: 'ECDSA_SHA_256', publicKeyPem, data, signature })).toBe(true);
    }
  });
});
