import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processCpuUs } from '../../bench/processCpuUs.ts';

const linux = process.platform === 'linux';

describe('processCpuUs', () => {
  it.skipIf(!linux)(
    "reads a running process's CPU from outside, every thread of it, to the 10 ms tick",
    async () => {
      // A child that spins its main thread and a worker thread through a fixed amount of work (CPU, whatever the
      // machine's load), then says what it used, all threads (`getrusage`), and waits to be read.
      const child = spawn(
        process.execPath,
        [
          '-e',
          `const { Worker } = require('node:worker_threads');
         const spin = 'let x = 0; for (let i = 0; i < 2e8; i++) x = (x + i) % 7919;';
         const w = new Worker(spin, { eval: true });
         eval(spin);
         w.on('exit', () => {
           const u = process.cpuUsage();
           process.stdout.write(String(u.user + u.system) + '\\n');
           setTimeout(() => undefined, 10_000);
         });`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      try {
        const [said] = (await once(child.stdout, 'data')) as [Buffer];
        const reported = Number(said.toString().trim());
        const read = processCpuUs(child.pid as number) as number;
        // Both threads spun 300 ms: the process's CPU holds both, as its own count does.
        expect(reported).toBeGreaterThan(550_000);
        expect(Math.abs(read - reported)).toBeLessThanOrEqual(30_000);
      } finally {
        child.kill();
        await once(child, 'exit');
      }
      // Gone: nothing to read.
      expect(processCpuUs(child.pid as number)).toBeUndefined();
    },
  );

  it('gives nothing for a process that does not exist', () => {
    expect(processCpuUs(2 ** 22 + 1)).toBeUndefined();
  });
});
