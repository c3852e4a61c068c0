import { createHash, generateKeyPairSync } from 'node:crypto';
import type { KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { ecdsaSignDigest } from '../../devkit/infra/ecdsaSignDigest.ts';
import { verifySignature } from '../../lib/archive/digest/digestSigner.ts';
import { kmsDigestSigner } from '../../lib/archive/digest/kmsDigestSigner.ts';

describe('kmsDigestSigner', () => {
  it('asks KMS to sign the SHA-256 digest, and the result verifies over the whole message', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const data = new TextEncoder().encode('x'.repeat(10_000)); // larger than KMS's 4 KiB raw limit
    const sent: Record<string, unknown>[] = [];
    const client = {
      send: async (command: { input: Record<string, unknown> }) => {
        sent.push(command.input);
        if ('SigningAlgorithm' in command.input) {
          expect(Buffer.from(command.input.Message as Uint8Array)).toEqual(
            createHash('sha256').update(data).digest(),
          );
          // As KMS does in DIGEST mode: ECDSA over the 32 bytes it was given, which it never hashes again.
          return {
            Signature: new Uint8Array(
              ecdsaSignDigest(privateKey, Buffer.from(command.input.Message as Uint8Array)),
            ),
          };
        }
        return { PublicKey: new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })) };
      },
    } as unknown as KMSClient;
    const signer = kmsDigestSigner({ client, keyId: 'arn:aws:kms:eu-west-1:1:key/k' });
    const signature = await signer.sign(data);
    const publicKeyPem = await signer.publicKeyPem();
    expect(publicKeyPem).toBe(publicKey.export({ type: 'spki', format: 'pem' }).toString());
    expect(sent[0]).toMatchObject({ MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' });
    expect(verifySignature({ algorithm: 'ECDSA_SHA_256', publicKeyPem, data, signature })).toBe(true);
    expect(
      verifySignature({ algorithm: 'ECDSA_SHA_256', publicKeyPem, data: data.subarray(1), signature }),
    ).toBe(false);
  });

  it('verifySignature is false, not an exception, for garbage keys or signatures', () => {
    const data = new Uint8Array([1]);
    expect(verifySignature({ algorithm: 'ed25519', publicKeyPem: 'nope', data, signature: data })).toBe(
      false,
    );
  });
});
