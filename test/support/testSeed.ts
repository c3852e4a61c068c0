/**
 * The seed of a randomized test: `TEST_SEED` when set (to replay a failure), else a fresh one each run,
 * so CI explores new cases. Tests put the seed in their failure messages; replay with
 * `TEST_SEED=<seed> npx vitest run <file>`.
 */
export function testSeed(): number {
  const fixed = process.env.TEST_SEED;
  if (fixed !== undefined && /^\d+$/.test(fixed)) return Number(fixed);
  return Math.floor(Math.random() * 2 ** 31);
}

/** mulberry32: a small deterministic generator of floats in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
