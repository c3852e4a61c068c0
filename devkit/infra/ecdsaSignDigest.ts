import { type KeyObject, randomBytes } from 'node:crypto';

// NIST P-256 domain parameters.
const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const A = P - 3n;
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const G: Point = [
  0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296n,
  0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5n,
];
type Point = [bigint, bigint] | null;

const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;
function inv(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [mod(a, m), m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return mod(s0, m);
}
function add(p: Point, q: Point): Point {
  if (!p) return q;
  if (!q) return p;
  if (p[0] === q[0] && mod(p[1] + q[1], P) === 0n) return null;
  const l =
    p[0] === q[0] && p[1] === q[1]
      ? mod((3n * p[0] * p[0] + A) * inv(2n * p[1], P), P)
      : mod((q[1] - p[1]) * inv(q[0] - p[0], P), P);
  const x = mod(l * l - p[0] - q[0], P);
  return [x, mod(l * (p[0] - x) - p[1], P)];
}
function mul(k: bigint, p: Point): Point {
  let r: Point = null;
  let base = p;
  for (let e = k; e > 0n; e >>= 1n) {
    if (e & 1n) r = add(r, base);
    base = add(base, base);
  }
  return r;
}
const big = (b: Buffer) => BigInt(`0x${b.toString('hex') || '0'}`);
function derInt(v: bigint): Buffer {
  let hex = v.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let b = Buffer.from(hex, 'hex');
  if ((b[0] as number) & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return Buffer.concat([Buffer.from([0x02, b.length]), b]);
}

/**
 * ECDSA P-256 over an already-hashed 32-byte value, DER-encoded: what KMS `Sign` returns for
 * `MessageType: DIGEST`. node:crypto always hashes its input for EC keys, so the test stub does the
 * textbook computation itself (test code only; not constant-time).
 */
export function ecdsaSignDigest(privateKey: KeyObject, digest: Uint8Array): Buffer {
  const d = big(Buffer.from(String(privateKey.export({ format: 'jwk' }).d), 'base64url'));
  const z = big(Buffer.from(digest));
  for (;;) {
    const k = mod(big(randomBytes(40)), N - 1n) + 1n;
    const R = mul(k, G);
    if (!R) continue;
    const r = mod(R[0], N);
    const s = mod(inv(k, N) * (z + r * d), N);
    if (r === 0n || s === 0n) continue;
    const body = Buffer.concat([derInt(r), derInt(s)]);
    return Buffer.concat([Buffer.from([0x30, body.length]), body]);
  }
}
