import { describe, expect, it } from 'vitest';
import { walkCpuMsPerPage } from '../../bench/bigDay.ts';

describe('walkCpuMsPerPage', () => {
  it("divides the CPU between the walk's first and last request by the requests between them", () => {
    const walk = [
      { at: 0, path: '/p0', cpuUs: 1_000_000 },
      { at: 40, path: '/p1', cpuUs: 1_004_000 },
      { at: 80, path: '/p2', cpuUs: 1_011_000 },
      { at: 120, path: '/p3', cpuUs: 1_015_500 },
    ];
    expect(walkCpuMsPerPage(walk)).toBe(5.17);
  });

  it('gives nothing without two stamped requests', () => {
    expect(walkCpuMsPerPage([])).toBeUndefined();
    expect(walkCpuMsPerPage([{ at: 0, path: '/p0', cpuUs: 5 }])).toBeUndefined();
    expect(
      walkCpuMsPerPage([
        { at: 0, path: '/p0' },
        { at: 40, path: '/p1' },
      ]),
    ).toBeUndefined();
  });
});
