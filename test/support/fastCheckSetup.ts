import fc from 'fast-check';

/**
 * Every property test explores new cases on every run: fast-check draws a fresh seed unless a test fixes
 * one (none does), and prints `seed: N, path: P` when a property fails. `TEST_SEED=N` replays a failure
 * (with the same path it prints), here and in tests that draw their own randomness (`testSeed`).
 */
const seed = process.env.TEST_SEED;
if (seed !== undefined && /^\d+$/.test(seed)) fc.configureGlobal({ seed: Number(seed) });
