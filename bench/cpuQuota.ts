/**
 * A CPU quota for a child process the bench starts: a child cgroup of its own whose `cpu.max` (cgroup v2) or
 * `cpu.cfs_quota_us` (cgroup v1) lets it use `share` of one core each 100 ms period, as Lambda gives a
 * function a share of a vCPU in proportion to its memory. The child is put in the group before it runs
 * anything (`wrap`: a shell writes its own pid to the group, then becomes the command), so every thread and
 * child process it starts shares the one quota. `close` removes the group once its processes have exited.
 *
 * Needs write access to a cgroup hierarchy with the cpu controller (root, as on this machine and in CI);
 * without it, `openCpuQuota` says why and the bench reports its figures unconstrained only.
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CPU_PERIOD_US = 100_000;

/** Blocks the thread for `ms` (the group's close is synchronous, called from `finally` blocks). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export interface CpuQuota {
  /** Cores the group may use: quota ÷ period. */
  share: number;
  /** `cgroup v2 <dir>` or `cgroup v1 <dir>`. */
  how: string;
  /** `command args` started inside the group: the command and arguments to spawn instead. */
  wrap(command: string, args: readonly string[]): [string, string[]];
  /** Moves a running process (all its threads) into the group. */
  add(pid: number): void;
  /** Periods the group ran in, those it was throttled in, and the time its threads waited for the quota. */
  throttling(): { periods: number; throttled: number; throttledMs: number };
  /**
   * Removes the group. A process still in it (a grandchild the command left, still exiting) gets up to 5 s to
   * end on its own, then is killed; the pids it had to kill are returned, and a line on stderr names them.
   */
  close(): number[];
}

export type QuotaOutcome = { quota: CpuQuota } | { unconstrained: string };

/** The line a bench prints and records when no quota can be applied. */
export const UNCONSTRAINED_ONLY = 'unconstrained only: no cgroup write access';

interface Hierarchy {
  version: 1 | 2;
  root: string;
}

/** The cgroup hierarchy that holds the cpu controller: v2 (unified) first, else v1's cpu mount. */
function cpuHierarchy(mounts = readFileSync('/proc/mounts', 'utf8')): Hierarchy | undefined {
  const rows = mounts
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f.length >= 4);
  for (const [, dir, type] of rows) {
    if (type !== 'cgroup2' || dir === undefined) continue;
    try {
      const controllers = readFileSync(join(dir, 'cgroup.controllers'), 'utf8').split(/\s+/);
      if (controllers.includes('cpu')) return { version: 2, root: dir };
    } catch {
      // not readable: not ours to use
    }
  }
  for (const [, dir, type, options] of rows) {
    if (type === 'cgroup' && dir !== undefined && options?.split(',').includes('cpu'))
      return { version: 1, root: dir };
  }
  return undefined;
}

/**
 * A child cgroup named `name` (made unique by the bench's pid) limited to `share` cores. `share` at or above
 * the machine's cores gives no quota (`max` / −1), the same as unconstrained but measured the same way.
 */
export function openCpuQuota(share: number, name: string): QuotaOutcome {
  if (!(share > 0)) throw new Error(`a CPU share must be positive, not ${share}`);
  if (process.getuid?.() !== 0) return { unconstrained: `${UNCONSTRAINED_ONLY} (not root)` };
  const hierarchy = cpuHierarchy();
  if (!hierarchy)
    return { unconstrained: `${UNCONSTRAINED_ONLY} (no cgroup hierarchy with the cpu controller)` };
  const dir = join(hierarchy.root, `tunnel-archiver-bench-${name}-${process.pid}`);
  const quotaUs = Math.max(1_000, Math.round(share * CPU_PERIOD_US));
  try {
    if (hierarchy.version === 2) {
      // The root's children get the cpu controller only once the root hands it down.
      const subtree = join(hierarchy.root, 'cgroup.subtree_control');
      if (!readFileSync(subtree, 'utf8').split(/\s+/).includes('cpu')) writeFileSync(subtree, '+cpu');
      mkdirSync(dir);
      writeFileSync(join(dir, 'cpu.max'), `${quotaUs} ${CPU_PERIOD_US}`);
    } else {
      mkdirSync(dir);
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
    }
  } catch (error) {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return { unconstrained: `${UNCONSTRAINED_ONLY} (${(error as Error).message})` };
  }
  const procs = join(dir, 'cgroup.procs');
  const stat = (): Record<string, number> =>
    Object.fromEntries(
      readFileSync(join(dir, 'cpu.stat'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' '))
        .map(([k, v]) => [k, Number(v)]),
    );
  const removeOnExit = (): void => {
    try {
      rmdirSync(dir);
    } catch {
      // already removed, or still busy: nothing more an exiting bench can do
    }
  };
  process.once('exit', removeOnExit);
  return {
    quota: {
      share: quotaUs / CPU_PERIOD_US,
      how: `cgroup v${hierarchy.version} ${dir}`,
      // `$0` is the group, `$@` the command: the shell joins the group, then execs into the command.
      wrap: (command, args) => [
        '/bin/sh',
        ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, command, ...args],
      ],
      add: (pid) => writeFileSync(procs, String(pid)),
      throttling: () => {
        const s = stat();
        return hierarchy.version === 2
          ? {
              periods: s.nr_periods ?? 0,
              throttled: s.nr_throttled ?? 0,
              throttledMs: Math.round((s.throttled_usec ?? 0) / 1000),
            }
          : {
              periods: s.nr_periods ?? 0,
              throttled: s.nr_throttled ?? 0,
              throttledMs: Math.round((s.throttled_time ?? 0) / 1e6),
            };
      },
      close: () => {
        process.off('exit', removeOnExit);
        const left = (): number[] =>
          readFileSync(procs, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
        const waitEmpty = (ms: number): boolean => {
          const until = Date.now() + ms;
          while (left().length > 0) {
            if (Date.now() >= until) return false;
            sleepSync(50);
          }
          return true;
        };
        let killed: number[] = [];
        if (!waitEmpty(5_000)) {
          killed = left();
          for (const pid of killed) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // exited between the read and the kill
            }
          }
          process.stderr.write(
            `the CPU quota's group still held processes ${killed.join(' ')} after 5 s: killed\n`,
          );
          if (!waitEmpty(5_000))
            throw new Error(`the CPU quota's group still holds processes ${left().join(' ')}`);
        }
        rmdirSync(dir);
        return killed;
      },
    },
  };
}
