import { createHash } from 'node:crypto';

/**
 * An order-free fingerprint of a set of objects: the sum, modulo 2^256, of SHA-256(`key` NUL `sha256`) over
 * its members, with their count. Two sets with the same fingerprint hold the same objects with the same
 * bytes (but for a SHA-256 collision). Sums add: a time range's fingerprint is the sum of its weeks', so
 * the weekly verify keeps 32 bytes a week of the archive, never a list of its objects.
 */
export interface Fingerprint {
  /** 64 lower-case hex digits. */
  sum: string;
  count: number;
}

const MOD = 1n << 256n;

export const emptyFingerprint: Fingerprint = { sum: '0'.repeat(64), count: 0 };

function term(key: string, sha256: string): bigint {
  return BigInt(`0x${createHash('sha256').update(`${key}\0${sha256}`).digest('hex')}`);
}

/** `f` with one more object. */
export function addObject(f: Fingerprint, key: string, sha256: string): Fingerprint {
  return { sum: toHex((BigInt(`0x${f.sum}`) + term(key, sha256)) % MOD), count: f.count + 1 };
}

/** The fingerprint of two disjoint sets together. */
export function addFingerprints(a: Fingerprint, b: Fingerprint): Fingerprint {
  return { sum: toHex((BigInt(`0x${a.sum}`) + BigInt(`0x${b.sum}`)) % MOD), count: a.count + b.count };
}

export function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  return a.sum === b.sum && a.count === b.count;
}

function toHex(n: bigint): string {
  return n.toString(16).padStart(64, '0');
}
