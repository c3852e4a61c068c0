import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openCpuQuota, UNCONSTRAINED_ONLY } from '../../bench/cpuQuota.ts';

const exec = promisify(execFile);
const root = process.getuid?.() === 0;

describe('openCpuQuota', () => {
  it('refuses a share that is not positive', () => {
    expect(() => openCpuQuota(0, 'zero')).toThrow(/positive/);
  });

  it.skipIf(!root)(
    'starts a wrapped command inside a group limited to the share, and removes the group',
    async () => {
      const opened = openCpuQuota(0.25, 'test');
      if ('unconstrained' in opened) {
        // A root without a writable cpu hierarchy: the reason must say so.
        expect(opened.unconstrained).toContain(UNCONSTRAINED_ONLY);
        return;
      }
      const { quota } = opened;
      const dir = quota.how.split(' ').at(-1) as string;
      try {
        expect(quota.share).toBe(0.25);
        const limit = existsSync(join(dir, 'cpu.max'))
          ? readFileSync(join(dir, 'cpu.max'), 'utf8').trim()
          : `${readFileSync(join(dir, 'cpu.cfs_quota_us'), 'utf8').trim()} ${readFileSync(join(dir, 'cpu.cfs_period_us'), 'utf8').trim()}`;
        expect(limit).toBe('25000 100000');
        // The child reads its own cgroup membership: the group's name is on its cpu (or unified) line.
        const [command, args] = quota.wrap(process.execPath, [
          '-e',
          "process.stdout.write(require('node:fs').readFileSync('/proc/self/cgroup', 'utf8'))",
        ]);
        const { stdout } = await exec(command, args);
        const name = dir.split('/').at(-1) as string;
        expect(stdout.split('\n').some((l) => l.endsWith(`/${name}`))).toBe(true);
        expect(quota.throttling().periods).toBeGreaterThanOrEqual(0);
      } finally {
        quota.close();
      }
      expect(existsSync(dir)).toBe(false);
    },
  );

  it.skipIf(!root)('ends a process the command left in the group, and still removes the group', async () => {
    const opened = openCpuQuota(0.5, 'leftover');
    if ('unconstrained' in opened) return;
    const { quota } = opened;
    const dir = quota.how.split(' ').at(-1) as string;
    // The command starts a grandchild that outlives it (a sleep in the background), prints its pid and exits.
    const [command, args] = quota.wrap('/bin/sh', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!']);
    const { stdout } = await exec(command, args);
    const grandchild = Number(stdout.trim());
    expect(readFileSync(join(dir, 'cgroup.procs'), 'utf8')).toContain(String(grandchild));
    expect(quota.close()).toEqual([grandchild]);
    expect(existsSync(dir)).toBe(false);
    // Gone, or a zombie until whoever adopted it reaps it.
    const stat = existsSync(`/proc/${grandchild}/stat`)
      ? readFileSync(`/proc/${grandchild}/stat`, 'utf8')
      : '';
    expect(stat === '' || / Z /.test(stat)).toBe(true);
  });
});
