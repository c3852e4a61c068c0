import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openCpuQuota } from '../../bench/cpuQuota.ts';
import { WORKER_MIN_CPU } from '../../lib/archive/parquet/parquetWorkerClient.ts';

const exec = promisify(execFile);
const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const CHILD = fileURLToPath(new URL('./fixtures/cpuCapacityChild.ts', import.meta.url));
const root = process.getuid?.() === 0;

interface Read {
  capacity: number;
  parallelism: number;
  worker: boolean;
}

async function readIn(command: string, args: string[]): Promise<Read> {
  const { stdout } = await exec(command, args);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Read;
}

describe('cpuCapacity on this host, in a quota the bench opens', () => {
  it('is the CPU count in a process no quota limits, and a worker encodes from 1.5 cores', async () => {
    const read = await readIn(process.execPath, [RUN_TS, CHILD]);
    expect(read.capacity).toBe(read.parallelism);
    expect(read.worker).toBe(read.capacity >= WORKER_MIN_CPU);
  });

  it.skipIf(!root || availableParallelism() < 2)(
    "reads a real cgroup's quota on a host of two or more CPUs: no encoding worker in one core's worth, one in 1.5",
    async () => {
      for (const share of [1, WORKER_MIN_CPU]) {
        const opened = openCpuQuota(share, 'capacity');
        if ('unconstrained' in opened) return; // no writable cpu hierarchy: nothing to read
        const { quota } = opened;
        try {
          const read = await readIn(...quota.wrap(process.execPath, [RUN_TS, CHILD]));
          // Node counts the CPUs the process may run on: the quota is invisible to it.
          expect(read.parallelism).toBe(availableParallelism());
          expect(read.capacity).toBe(share);
          expect(read.worker).toBe(share >= WORKER_MIN_CPU);
        } finally {
          quota.close();
        }
      }
    },
  );
});
