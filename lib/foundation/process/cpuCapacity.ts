import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

/** What {@link cpuCapacity} reads: injected so a test can give it any host's files. */
export interface CpuHost {
  /** The CPUs this process may run on (`os.availableParallelism()`). */
  parallelism(): number;
  /** A file's text, or undefined when it cannot be read. */
  read(file: string): string | undefined;
}

const realHost: CpuHost = {
  parallelism: availableParallelism,
  read(file) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  },
};

/**
 * The cores' worth of CPU this process may use: the CPUs it may run on, lowered to the CPU quota of its
 * cgroup and of every cgroup above it that its mounts show (cgroup v2 `cpu.max`, cgroup v1
 * `cpu.cfs_quota_us` over `cpu.cfs_period_us`; found through `/proc/self/cgroup` and
 * `/proc/self/mountinfo`), as a container with a CPU limit sets it. Node's `availableParallelism()` counts the
 * CPUs the process may be scheduled on and no quota: a container limited to one core on a two-core host
 * answers 2 (measured here under a cgroup v1 quota, Node 20 and 24). A fraction when the quota is one; the
 * CPU count when no quota is set or none can be read. Read once a process.
 */
export function cpuCapacity(host: CpuHost = realHost): number {
  if (host === realHost) {
    cached ??= capacityOf(host);
    return cached;
  }
  return capacityOf(host);
}

let cached: number | undefined;

function capacityOf(host: CpuHost): number {
  const cpus = host.parallelism();
  const membership = host.read('/proc/self/cgroup');
  const mounts = host.read('/proc/self/mountinfo');
  if (membership === undefined || mounts === undefined) return cpus;
  let quota = Number.POSITIVE_INFINITY;
  for (const group of cpuGroups(membership, mounts))
    for (const dir of upTo(group.root, group.dir)) quota = Math.min(quota, group.quotaIn(host, dir));
  return Math.min(cpus, quota);
}

interface CpuGroup {
  /** Where the hierarchy (or the part of it this process sees) is mounted, */
  root: string;
  /** and the process's own group under that mount. */
  dir: string;
  /** The quota one group sets, in cores: infinite when it sets none. */
  quotaIn(host: CpuHost, dir: string): number;
}

/** One line of `/proc/self/mountinfo`: the folder of the hierarchy mounted, where, its type and options. */
interface Mount {
  root: string;
  point: string;
  type: string;
  options: string[];
}

/** `<id> <parent> <dev> <root> <point> <options> [optional…] - <type> <source> <super options>` */
function mountsOf(mountinfo: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left = '', right = ''] = line.split(' - ');
    const fields = left.split(' ');
    const [type = '', , superOptions = ''] = right.split(' ');
    const root = fields[3];
    const point = fields[4];
    if (root === undefined || point === undefined) continue;
    mounts.push({
      root: unescapeOctal(root),
      point: unescapeOctal(point),
      type,
      options: superOptions.split(','),
    });
  }
  return mounts;
}

/** A mountinfo path: space, tab, newline and backslash are written as octal escapes. */
function unescapeOctal(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/**
 * The process's groups in each mounted hierarchy that limits CPU: the unified (v2) one (`0::<path>`) and the
 * v1 one whose controllers include `cpu`. A group's path is the hierarchy's; a mount may show only part of
 * the hierarchy (a container's own group, bind-mounted), so the group is found under the mount whose root
 * holds it, at its path below that root. A group no mount holds is not read.
 */
function cpuGroups(membership: string, mountinfo: string): CpuGroup[] {
  const groups: CpuGroup[] = [];
  const mounts = mountsOf(mountinfo);
  for (const line of membership.split('\n')) {
    const match = /^(\d+):([^:]*):(\/.*)$/.exec(line.trim());
    if (!match) continue;
    const [, id, controllers = '', groupPath = '/'] = match;
    const v2 = id === '0' && controllers === '';
    if (!v2 && !controllers.split(',').includes('cpu')) continue;
    const mount = mounts.find(
      (m) =>
        (v2 ? m.type === 'cgroup2' : m.type === 'cgroup' && m.options.includes('cpu')) &&
        within(m.root, groupPath),
    );
    if (mount === undefined) continue;
    const dir = path.join(mount.point, path.relative(mount.root, groupPath));
    groups.push({ root: mount.point, dir, quotaIn: v2 ? v2Quota : v1Quota });
  }
  return groups;
}

/** Whether `inner` is `outer` or a folder below it. */
function within(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || !(relative.startsWith('..') || path.isAbsolute(relative));
}

/** `dir` and each folder above it, up to and with `root`. */
function* upTo(root: string, dir: string): Generator<string> {
  let at = dir;
  while (at.startsWith(root)) {
    yield at;
    if (at === root) return;
    at = path.dirname(at);
  }
}

/** `cpu.max`: `<quota> <period>` in µs, or `max <period>` for none. */
function v2Quota(host: CpuHost, dir: string): number {
  const [quota, period] = (host.read(path.join(dir, 'cpu.max')) ?? '').trim().split(/\s+/);
  return cores(quota, period);
}

/** `cpu.cfs_quota_us` (-1 for none) over `cpu.cfs_period_us`. */
function v1Quota(host: CpuHost, dir: string): number {
  return cores(
    host.read(path.join(dir, 'cpu.cfs_quota_us'))?.trim(),
    host.read(path.join(dir, 'cpu.cfs_period_us'))?.trim(),
  );
}

/** A quota over its period in cores; infinite for none, or for anything that is not two positive integers. */
function cores(quota: string | undefined, period: string | undefined): number {
  if (quota === undefined || period === undefined || !/^\d+$/.test(quota) || !/^\d+$/.test(period))
    return Number.POSITIVE_INFINITY;
  const q = Number(quota);
  const p = Number(period);
  return q > 0 && p > 0 ? q / p : Number.POSITIVE_INFINITY;
}
