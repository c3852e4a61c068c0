import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATASET } from '../../lib/archive/emulator/dataset.ts';
import { SessionArchive } from '../../lib/archive/emulator/sessionArchive.ts';
import { addDays, dayRange } from '../../lib/foundation/clock/day.ts';

const DAY_MS = 86_400_000;
const T0 = Date.parse('2025-03-01T00:00:00Z');

/** What `visible` must answer, computed the slow way. */
function bruteForce(archive: SessionArchive, from: string, to: string, atMs: number): string[] {
  const today = new Date(atMs).toISOString().slice(0, 10);
  const last = to < today ? to : today;
  if (from > last) return [];
  return dayRange(from, last).flatMap((d) =>
    archive
      .sessions(d)
      .filter((s) => archive.isVisible(s, atMs))
      .map((s) => s.id),
  );
}

describe('SessionArchive.visible', () => {
  it('answers like a fresh scan for any sequence of instants, ranges and releases (property)', () => {
    const archive = new SessionArchive(3, DEFAULT_DATASET);
    const step = fc.record({
      atMs: fc.integer({ min: T0 - 3 * DAY_MS, max: T0 + 2 * DAY_MS }),
      back: fc.integer({ min: 0, max: 3 }),
      span: fc.integer({ min: 0, max: 2 }),
      release: fc.integer({ min: 0, max: 3 }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        for (const { atMs, back, span, release } of steps) {
          const from = addDays('2025-02-27', back);
          const to = addDays(from, span);
          if (release > 0) archive.release(from, to, release, atMs);
          expect(archive.visible(from, to, atMs).map((s) => s.id)).toEqual(
            bruteForce(archive, from, to, atMs),
          );
        }
      }),
      { numRuns: 60 },
    );
  });

  it('reuses one answer for a settled day while a real clock moves on', () => {
    const archive = new SessionArchive(3, DEFAULT_DATASET);
    const first = archive.visible('2025-01-10', '2025-01-10', T0);
    expect(first.length).toBeGreaterThan(0);
    expect(archive.visible('2025-01-10', '2025-01-10', T0 + 5_000)).toBe(first);
  });

  it('orders each day by orderKey', () => {
    const archive = new SessionArchive(3, DEFAULT_DATASET);
    const keys = archive.sessions('2025-01-10').map((s) => s.orderKey);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
  });
});
