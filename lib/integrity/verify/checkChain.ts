import {
  type DigestChain,
  digestKeys,
  signedBytes,
  strictBase64,
  verifySignature,
} from '../../archive/index.ts';
import type { VerifyFailure } from './verifyTypes.ts';

/**
 * Chain checks: the public key is published, every digest parses, positions are contiguous from 1,
 * each digest links to its predecessor by key and SHA-256, and each signature verifies under the
 * published key. Pure over the chain already read.
 */
export function checkChain(
  chain: DigestChain,
  /** A part of the chain: the position its first entry holds (no hole reported before it, no empty chain). */
  segment?: { from: number },
): VerifyFailure[] {
  const failures: VerifyFailure[] = [];
  const pk = chain.publicKey;
  if (chain.publicKeyError) {
    failures.push({ kind: 'public-key', object: digestKeys.publicKeyInfo, message: chain.publicKeyError });
  } else if (!pk && chain.entries.length > 0) {
    failures.push({
      kind: 'public-key',
      object: digestKeys.publicKeyPem,
      message: 'the public key is not published: no digest can be checked',
    });
  }
  if (chain.entries.length === 0 && !segment) {
    failures.push({
      kind: 'chain',
      object: digestKeys.digest(1),
      message: `no digest found under ${digestKeys.prefix}: not an archive, or no run has finished since digests were introduced`,
    });
  }
  for (const key of chain.strays) {
    failures.push({ kind: 'unlisted', object: key, message: `${key} is under digests/ but is not a digest` });
  }
  let prev: DigestChain['entries'][number] | undefined;
  for (const entry of chain.entries) {
    const expectedSeq = prev ? prev.seq + 1 : (segment?.from ?? 1);
    for (let s = expectedSeq; s < entry.seq; s++) {
      const missing = digestKeys.digest(s);
      failures.push({
        kind: 'chain',
        object: missing,
        message: `${missing} is missing: the chain jumps to ${entry.key}`,
      });
    }
    const d = entry.digest;
    if (!d) {
      failures.push({
        kind: 'digest',
        object: entry.key,
        message: `${entry.key}: ${entry.error ?? 'unreadable'}`,
      });
      prev = entry;
      continue;
    }
    if (d.seq !== entry.seq) {
      failures.push({
        kind: 'chain',
        object: entry.key,
        message: `${entry.key} says it is digest ${d.seq}: it was copied or renamed`,
      });
    }
    if (entry.seq === 1) {
      if (d.previous !== null)
        failures.push({
          kind: 'chain',
          object: entry.key,
          message: `${entry.key} is the first digest but links to ${d.previous.key}`,
        });
    } else if (prev && entry.seq === prev.seq + 1) {
      if (!d.previous || d.previous.key !== prev.key || d.previous.sha256 !== prev.sha256) {
        failures.push({
          kind: 'chain',
          object: entry.key,
          message: `${entry.key} does not link to ${prev.key} as it is now (${d.previous ? `expected SHA-256 ${d.previous.sha256}, found ${prev.sha256}` : 'no link'}): ${prev.key} was changed`,
        });
      }
    }
    const signature = strictBase64(d.signature);
    if (!signature) {
      failures.push({
        kind: 'signature',
        object: entry.key,
        message: `${entry.key}: the signature is not canonical standard base64 (padded, + and /): another spelling of a signature is not the signature`,
      });
    } else if (pk) {
      // Over the JSON as stored, every member: never over what a schema kept of it.
      const valid =
        d.keyId === pk.info.keyId &&
        d.algorithm === pk.info.algorithm &&
        verifySignature({
          algorithm: d.algorithm,
          publicKeyPem: pk.pem,
          data: signedBytes(entry.stored ?? d),
          signature,
        });
      if (!valid) {
        failures.push({
          kind: 'signature',
          object: entry.key,
          message: `${entry.key}: the signature does not verify under the published key ${pk.info.keyId}`,
        });
      }
    }
    prev = entry;
  }
  return failures;
}
