import { describe, expect, it } from 'vitest';
import { downsample, liveChart, sessionsByModeChart } from '../../lib/integrity/report/renderCharts.ts';

describe('downsample', () => {
  it('keeps at most 1,000 points of a long series, and its peaks', () => {
    const points = Array.from({ length: 5_000 }, (_, i) => ({
      at: String(i),
      open: i === 4_321 ? 999 : i % 10,
    }));
    const kept = downsample(points);
    expect(kept.length).toBeLessThanOrEqual(1_000);
    expect(kept.some((p) => p.open === 999)).toBe(true);
    expect(downsample(points.slice(0, 10))).toHaveLength(10);
  });
});

describe('charts', () => {
  it('are static SVG (no script), in weekly bars once the archive is longer than half a year', () => {
    const days = Array.from({ length: 200 }, (_, i) =>
      new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10),
    );
    const weekly = sessionsByModeChart(days.map((day) => ({ day, mode: 'http', sessions: 3 })));
    expect(weekly).toContain('<svg');
    expect(weekly).toContain('sessions per week');
    expect(weekly).not.toMatch(/<script/i);
    expect(
      sessionsByModeChart(days.slice(0, 30).map((day) => ({ day, mode: 'tcp', sessions: 1 }))),
    ).toContain('sessions per day');
    expect(liveChart([{ at: '2026-01-01T00:00:00.000Z', open: 4 }])).toContain('<svg');
  });
});
