import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // On a loaded 2-core machine a test takes several times its quiet duration (a 200-case property test of
    // the day planner: 16 s beside two CPU burners, 78 s among other test runs). The limit only stops a
    // hung test; no test measures time with it.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    // Vitest's default is one file at a time on 2 cores (cores - 1). As many as the cores, at least two:
    // the suite's child processes, servers and waits then overlap (23 minutes against 29, quiet, measured).
    maxWorkers: Math.max(2, availableParallelism()),
    // Property tests vary their seed on every run and print it on failure (TEST_SEED replays it).
    setupFiles: ['test/support/fastCheckSetup.ts'],
    // One folder for the run's leftovers (the CLI children's configuration), removed when the run ends.
    globalSetup: ['test/support/testRunFolder.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.int.test.ts', 'test/infra/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.int.test.ts'],
          exclude: ['test/infra/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
        },
      },
    ],
  },
});
