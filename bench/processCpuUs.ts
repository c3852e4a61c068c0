import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: the unit of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`), 100 on every Linux ABI the bench runs on. */
const TICKS_PER_SECOND = 100;

/**
 * User + system CPU µs a running process has used so far, all its threads together (`/proc/<pid>/stat`'s
 * `utime` and `stime`, to the 10 ms tick), or undefined when it cannot be read (not Linux, or the process is
 * gone). Read from outside the process, so it costs the process nothing.
 */
export function processCpuUs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields are counted after its last `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15: the 12th and 13th after the name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1e6) / TICKS_PER_SECOND : undefined;
}
