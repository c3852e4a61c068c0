import { createHash } from 'node:crypto';
import { GetPublicKeyCommand, type KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { ArchiverError } from '../../foundation/index.ts';
import type { DigestSigner } from './digestSigner.ts';

/**
 * AWS adapter: an asymmetric KMS key (ECC_NIST_P256, SIGN_VERIFY). KMS signs at most 4 KiB of raw
 * message, so it signs the SHA-256 digest (`MessageType: 'DIGEST'`), which is the same ECDSA_SHA_256
 * signature a verifier checks over the whole message with node:crypto.
 */
export function kmsDigestSigner(opts: { client: KMSClient; keyId: string }): DigestSigner {
  const { client, keyId } = opts;
  let pem: Promise<string> | undefined;
  return {
    keyId,
    algorithm: 'ECDSA_SHA_256',
    publicKeyPem() {
      pem ??= client.send(new GetPublicKeyCommand({ KeyId: keyId })).then((out) => {
        if (!out.PublicKey) throw new ArchiverError('INTERNAL', `KMS returned no public key for ${keyId}`);
        const b64 = Buffer.from(out.PublicKey).toString('base64');
        return `-----BEGIN PUBLIC KEY-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END PUBLIC KEY-----\n`;
      });
      return pem;
    },
    async sign(data) {
      const out = await client.send(
        new SignCommand({
          KeyId: keyId,
          Message: createHash('sha256').update(data).digest(),
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
      if (!out.Signature) throw new ArchiverError('INTERNAL', `KMS returned no signature for ${keyId}`);
      return out.Signature;
    },
  };
}
