import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { sha256Hex } from '../records/sha256Hex.ts';
import type { DigestSigner } from './digestSigner.ts';

/** Local adapter: an Ed25519 private key (PKCS#8 PEM) held in memory. */
export function ed25519Signer(privateKeyPem: string): DigestSigner {
  const privateKey = createPrivateKey(privateKeyPem);
  const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    keyId: `ed25519:${sha256Hex(publicPem).slice(0, 32)}`,
    algorithm: 'ed25519',
    publicKeyPem: async () => publicPem,
    sign: async (data) => new Uint8Array(sign(null, data, privateKey)),
  };
}
