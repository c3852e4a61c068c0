import { describe, expect, it } from 'vitest';
import { type CpuHost, cpuCapacity } from '../../lib/foundation/index.ts';

/** A host of `cpus` CPUs whose files are `files` (any other file cannot be read). */
function host(cpus: number, files: Record<string, string>): CpuHost {
  return { parallelism: () => cpus, read: (file) => files[file] };
}

/** `/proc/self/mountinfo` of a cgroup v1 host: the cpu controller mounted with cpuacct. */
const V1_MOUNTS = [
  '25 20 0:22 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs rw,mode=755',
  '30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,cpu,cpuacct',
  '31 25 0:27 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory',
].join('\n');
const V1_ROOT = '/sys/fs/cgroup/cpu,cpuacct';
/** `/proc/self/mountinfo` of a cgroup v2 host. */
const V2_MOUNTS =
  '35 20 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate';

/** A cgroup v2 host whose process is in `group`, each group of `limits` (a path) with that `cpu.max`. */
function onV2(cpus: number, group: string, limits: Record<string, string>): CpuHost {
  const files: Record<string, string> = {
    '/proc/self/cgroup': `0::${group}\n`,
    '/proc/self/mountinfo': V2_MOUNTS,
  };
  for (const [dir, max] of Object.entries(limits)) files[`/sys/fs/cgroup${dir}/cpu.max`] = `${max}\n`;
  return host(cpus, files);
}

/** The files of a v1 group at `dir` (under the mount) with this quota and period. */
function v1Limit(dir: string, quota: string, period = '100000'): Record<string, string> {
  return { [`${dir}/cpu.cfs_quota_us`]: `${quota}\n`, [`${dir}/cpu.cfs_period_us`]: `${period}\n` };
}

describe('cpuCapacity', () => {
  it('is the CPU count where no cgroup sets a quota (v2 `max`, v1 -1)', () => {
    expect(cpuCapacity(onV2(4, '/app', { '/app': 'max 100000' }))).toBe(4);
    const v1 = host(2, {
      '/proc/self/cgroup': '4:cpu,cpuacct:/docker/abc\n1:memory:/docker/abc\n0::/\n',
      '/proc/self/mountinfo': V1_MOUNTS,
      ...v1Limit(`${V1_ROOT}/docker/abc`, '-1'),
    });
    expect(cpuCapacity(v1)).toBe(2);
  });

  it("is a cgroup v2 group's quota in cores, a fraction when it is one", () => {
    const pod = onV2(2, '/kubepods/pod1/c1', { '/kubepods/pod1/c1': '58000 100000' });
    expect(cpuCapacity(pod)).toBeCloseTo(0.58, 10);
  });

  it("is a cgroup v1 group's quota over its period, in the cpu controller's mount", () => {
    const files = {
      '/proc/self/cgroup': '7:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n',
      '/proc/self/mountinfo': V1_MOUNTS,
      ...v1Limit(`${V1_ROOT}/docker/abc`, '150000'),
    };
    expect(cpuCapacity(host(8, files))).toBe(1.5);
  });

  it('takes the tightest quota of the group and every group above it, never more than the CPUs', () => {
    const limits = { '/a/b/c': '400000 100000', '/a/b': 'max 100000', '/a': '100000 100000' };
    expect(cpuCapacity(onV2(8, '/a/b/c', limits))).toBe(1);
    // A quota above the CPU count leaves the count.
    expect(cpuCapacity(onV2(2, '/a/b/c', { ...limits, '/a': '800000 100000' }))).toBe(2);
  });

  it('counts a hybrid host’s v1 and v2 quotas both', () => {
    const files = {
      '/proc/self/cgroup': '4:cpu,cpuacct:/job\n0::/job\n',
      '/proc/self/mountinfo': `${V1_MOUNTS}\n36 25 0:31 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw`,
      ...v1Limit(`${V1_ROOT}/job`, '-1'),
      '/sys/fs/cgroup/unified/job/cpu.max': '50000 100000',
    };
    expect(cpuCapacity(host(4, files))).toBe(0.5);
  });

  it('reads no quota from what it cannot read or parse, and falls back to the CPU count', () => {
    expect(cpuCapacity(host(3, {}))).toBe(3);
    for (const bad of ['', 'garbage', '0 100000', '-5 100000', '100000 0', '1e5 100000', '50000'])
      expect(cpuCapacity(onV2(3, '/x', { '/x': bad }))).toBe(3);
    // A membership line that names no mounted hierarchy reads nothing.
    const unmounted = host(3, {
      '/proc/self/cgroup': '4:cpu:/x\n',
      '/proc/self/mountinfo': V2_MOUNTS,
      '/sys/fs/cgroup/x/cpu.max': '100000 100000',
    });
    expect(cpuCapacity(unmounted)).toBe(3);
  });

  it('reads nothing above the mount of a group’s own subtree (a container’s cgroup namespace)', () => {
    const files = {
      '/proc/self/cgroup': '0::/\n',
      '/proc/self/mountinfo': V2_MOUNTS,
      '/sys/fs/cgroup/cpu.max': '200000 100000',
      '/sys/fs/cpu.max': '10000 100000',
    };
    expect(cpuCapacity(host(4, files))).toBe(2);
  });

  it("reads a group under a mount that shows only part of its hierarchy (a container's own group, bind-mounted)", () => {
    const files = {
      // Docker on cgroup v1 without a cgroup namespace: the host's path, the container's group as the mount's root.
      '/proc/self/cgroup': '4:cpu,cpuacct:/docker/abc\n',
      '/proc/self/mountinfo': `30 25 0:26 /docker/abc ${V1_ROOT} ro,nosuid - cgroup cgroup rw,cpu,cpuacct`,
      ...v1Limit(V1_ROOT, '50000'),
      // The host's path joined under the mount: no group of this process, and never read.
      ...v1Limit(`${V1_ROOT}/docker/abc`, '10000'),
    };
    expect(cpuCapacity(host(4, files))).toBe(0.5);
    // A group outside every mount's root is not read.
    expect(cpuCapacity(host(4, { ...files, '/proc/self/cgroup': '4:cpu,cpuacct:/other\n' }))).toBe(4);
  });

  it('reads a mount point written with escapes', () => {
    const files = {
      '/proc/self/cgroup': '0::/a\n',
      '/proc/self/mountinfo': '35 20 0:30 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw',
      '/mnt/cg two/a/cpu.max': '100000 100000',
    };
    expect(cpuCapacity(host(4, files))).toBe(1);
  });
});
