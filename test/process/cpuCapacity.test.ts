import { describe, expect, it } from 'vitest';
import { type CpuHost, cpuCapacity } from '../../lib/foundation/index.ts';

/** A host of `cpus` CPUs whose files are `files` (any other file cannot be read). */
function host(cpus: number, files: Record<string, string>): CpuHost {
  return { parallelism: () => cpus, read: (file) => files[file] };
}

const V1_MOUNTS = [
  'tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0',
  'cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,nodev,noexec,relatime,cpu,cpuacct 0 0',
  'cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0',
].join('\n');
const V2_MOUNTS = 'cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0';

describe('cpuCapacity', () => {
  it('is the CPU count where no cgroup sets a quota (v2 `max`, v1 -1)', () => {
    expect(
      cpuCapacity(
        host(4, {
          '/proc/self/cgroup': '0::/app\n',
          '/proc/self/mounts': V2_MOUNTS,
          '/sys/fs/cgroup/app/cpu.max': 'max 100000\n',
        }),
      ),
    ).toBe(4);
    expect(
      cpuCapacity(
        host(2, {
          '/proc/self/cgroup': '4:cpu,cpuacct:/docker/abc\n1:memory:/docker/abc\n0::/\n',
          '/proc/self/mounts': V1_MOUNTS,
          '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '-1\n',
          '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000\n',
        }),
      ),
    ).toBe(2);
  });

  it("is a cgroup v2 group's quota in cores, a fraction when it is one", () => {
    const files = {
      '/proc/self/cgroup': '0::/kubepods/pod1/c1\n',
      '/proc/self/mounts': V2_MOUNTS,
      '/sys/fs/cgroup/kubepods/pod1/c1/cpu.max': '58000 100000\n',
    };
    expect(cpuCapacity(host(2, files))).toBeCloseTo(0.58, 10);
  });

  it("is a cgroup v1 group's quota over its period, in the cpu controller's mount", () => {
    const files = {
      '/proc/self/cgroup': '7:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n',
      '/proc/self/mounts': V1_MOUNTS,
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '150000\n',
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000\n',
    };
    expect(cpuCapacity(host(8, files))).toBe(1.5);
  });

  it('takes the tightest quota of the group and every group above it, never more than the CPUs', () => {
    const files = {
      '/proc/self/cgroup': '0::/a/b/c\n',
      '/proc/self/mounts': V2_MOUNTS,
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
      '/proc/self/mounts': `${V1_MOUNTS}\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0`,
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
            '/proc/self/mounts': V2_MOUNTS,
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
          '/proc/self/mounts': V2_MOUNTS,
          '/sys/fs/cgroup/x/cpu.max': '100000 100000',
        }),
      ),
    ).toBe(3);
  });

  it('reads nothing above the mount of a group’s own subtree (a container’s cgroup namespace)', () => {
    const files = {
      '/proc/self/cgroup': '0::/\n',
      '/proc/self/mounts': V2_MOUNTS,
      '/sys/fs/cgroup/cpu.max': '200000 100000',
      '/sys/fs/cpu.max': '10000 100000',
    };
    expect(cpuCapacity(host(4, files))).toBe(2);
  });
});
