import { createPublicKey, verify } from 'node:crypto';

/** Signature schemes a digest may carry: Ed25519 (local key file) or ECDSA P-256 with SHA-256 (AWS KMS). */
export type SignatureAlgorithm = 'ed25519' | 'ECDSA_SHA_256';
export const SIGNATURE_ALGORITHMS = ['ed25519', 'ECDSA_SHA_256'] as const;

/**
 * Port: signs digests. The private half never leaves the adapter (a key file in local mode, a KMS key in
 * AWS); verification needs only the public key published in the archive, so an auditor never needs it.
 */
export interface DigestSigner {
  /** Stable name of the key (a fingerprint locally, the KMS key ARN in AWS); stored in every digest. */
  readonly keyId: string;
  readonly algorithm: SignatureAlgorithm;
  /** SPKI PEM of the public key. */
  publicKeyPem(): Promise<string>;
  /** Signature of `data` (Ed25519 raw 64 bytes, or DER-encoded ECDSA). */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** True when `signature` is a valid signature of `data` under `publicKeyPem`; never throws on bad input. */
export function verifySignature(input: {
  algorithm: SignatureAlgorithm;
  publicKeyPem: string;
  data: Uint8Array;
  signature: Uint8Array;
}): boolean {
  try {
    const key = createPublicKey(input.publicKeyPem);
    if (input.algorithm === 'ed25519') return verify(null, input.data, key, input.signature);
    return verify('sha256', input.data, { key, dsaEncoding: 'der' }, input.signature);
  } catch {
    return false;
  }
}
