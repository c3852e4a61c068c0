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
/** `/proc/self/mountinfo` of a cgroup v2 host. */
const V2_MOUNTS =
  '35 20 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate';

describe('cpuCapacity', () => {
  it('is the CPU count where no cgroup sets a quota (v2 `max`, v1 -1)', () => {
    expect(
      cpuCapacity(
        host(4, {
          '/proc/self/cgroup': '0::/app\n',
          '/proc/self/mountinfo': V2_MOUNTS,
          '/sys/fs/cgroup/app/cpu.max': 'max 100000\n',
        }),
      ),
    ).toBe(4);
    expect(
      cpuCapacity(
        host(2, {
          '/proc/self/cgroup': '4:cpu,cpuacct:/docker/abc\n1:memory:/docker/abc\n0::/\n',
          '/proc/self/mountinfo': V1_MOUNTS,
          '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '-1\n',
          '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000\n',
        }),
      ),
    ).toBe(2);
  });

  it("is a cgroup v2 group's quota in cores, a fraction when it is one", () => {
    const files = {
      '/proc/self/cgroup': '0::/kubepods/pod1/c1\n',
      '/proc/self/mountinfo': V2_MOUNTS,
      '/sys/fs/cgroup/kubepods/pod1/c1/cpu.max': '58000 100000\n',
    };
    expect(cpuCapacity(host(2, files))).toBeCloseTo(0.58, 10);
  });

  it("is a cgroup v1 group's quota over its period, in the cpu controller's mount", () => {
    const files = {
      '/proc/self/cgroup': '7:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n',
      '/proc/self/mountinfo': V1_MOUNTS,
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '150000\n',
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000\n',
    };
    expect(cpuCapacity(host(8, files))).toBe(1.5);
  });

  it('takes the tightest quota of the group and every group above it, never more than the CPUs', () => {
    const files = {
      '/proc/self/cgroup': '0::/a/b/c\n',
      '/proc/self/mountinfo': V2_MOUNTS,
      '/sys/fs/cgroup/a/b/c/cpu.max': '400000 100000',
      '/sys/fs/cgroup/a/b/cpu.max': 'max 100000',
      '/sys/fs/cgroup/a/cpu.max': '100000 100000',
    };
    expect(cpuCapacity(host(8, files))).toBe(1);
    // A quota above the CPU count leaves the count.
    expect(
      cpuCapacity(
        host(2, {
          ...files,
          '/sys/fs/cgroup/a/cpu.max': '800000 100000',
        }),
      ),
    ).toBe(2);
  });

  it('counts a hybrid host’s v1 and v2 quotas both', () => {
    const files = {
      '/proc/self/cgroup': '4:cpu,cpuacct:/job\n0::/job\n',
      '/proc/self/mountinfo': `${V1_MOUNTS}\n36 25 0:31 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw`,
      '/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us': '-1',
      '/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_period_us': '100000',
      '/sys/fs/cgroup/unified/job/cpu.max': '50000 100000',
    };
    expect(cpuCapacity(host(4, files))).toBe(0.5);
  });

  it('reads no quota from what it cannot read or parse, and falls back to the CPU count', () => {
    expect(cpuCapacity(host(3, {}))).toBe(3);
    for (const bad of ['', 'garbage', '0 100000', '-5 100000', '100000 0', '1e5 100000', '50000']) {
      expect(
        cpuCapacity(
          host(3, {
            '/proc/self/cgroup': '0::/x\n',
            '/proc/self/mountinfo': V2_MOUNTS,
            '/sys/fs/cgroup/x/cpu.max': bad,
          }),
        ),
      ).toBe(3);
    }
    // A membership line that names no mounted hierarchy reads nothing.
    expect(
      cpuCapacity(
        host(3, {
          '/proc/self/cgroup': '4:cpu:/x\n',
          '/proc/self/mountinfo': V2_MOUNTS,
          '/sys/fs/cgroup/x/cpu.max': '100000 100000',
        }),
      ),
    ).toBe(3);
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
      '/proc/self/mountinfo':
        '30 25 0:26 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '50000',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000',
      // The host's path joined under the mount: no group of this process, and never read.
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '10000',
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000',
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
