import { describe, expect, it } from 'vitest';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { expectArchiveExact, TEST_OPTIONS, windowDays, worldPerTest } from '../support/engineKit.ts';

const START = '2026-11-20T06:00:00.000Z';
const worlds = worldPerTest();

/** The API, counting how many different days have a request in flight at once. */
function counting(api: UpstreamApi) {
  const inFlight = new Map<string, number>();
  let most = 0;
  const wrapped: UpstreamApi = {
    ...api,
    listActive: (o) => api.listActive(o),
    historyPage: async (from, to, page, size, o) => {
      inFlight.set(from, (inFlight.get(from) ?? 0) + 1);
      most = Math.max(most, inFlight.size);
      try {
        return await api.historyPage(from, to, page, size, o);
      } finally {
        const n = (inFlight.get(from) ?? 1) - 1;
        if (n === 0) inFlight.delete(from);
        else inFlight.set(from, n);
      }
    },
  };
  return { api: wrapped, most: () => most };
}

describe('--day-concurrency: several days walked at once', () => {
  it('walks up to N days at once, and the archive is exact', async () => {
    const world = await worlds.open({ start: START, store: 'file', faults: { delayMs: 5 } });
    const w = world;
    const deps = w.deps();
    const api = counting(deps.api);
    const summary = await runArchive({ ...deps, api: api.api }, { ...TEST_OPTIONS, dayConcurrency: 4 });
    expect(summary.failedDays).toEqual([]);
    expect(summary.daysScanned).toBe(60);
    expect(api.most()).toBeGreaterThan(1);
    expect(api.most()).toBeLessThanOrEqual(4);
    await expectArchiveExact(w, w.objects, windowDays(toDay(w.clock.now())));
    // A second run at once adds nothing twice.
    const again = await runArchive(w.deps(), { ...TEST_OPTIONS, dayConcurrency: 4 });
    expect(again.recordsNew).toBe(0);
  });

  it('a failing day is recorded while the days beside it go on; a fatal error stops new days and fails the run', async () => {
    const world = await worlds.open({ start: START, store: 'file' });
    const w = world;
    const deps = w.deps();
    const bad = toDay(new Date(Date.parse(START) - 10 * 86_400_000));
    const failing: UpstreamApi = {
      ...deps.api,
      listActive: (o) => deps.api.listActive(o),
      historyPage: async (from, to, page, size, o) => {
        if (from === bad)
          throw new ArchiverError('UPSTREAM_UNAVAILABLE', 'this day is down', { retryable: false });
        return deps.api.historyPage(from, to, page, size, o);
      },
    };
    const summary = await runArchive({ ...deps, api: failing }, { ...TEST_OPTIONS, dayConcurrency: 3 });
    expect(summary.failedDays.map((f) => [f.day, f.code])).toEqual([[bad, 'UPSTREAM_UNAVAILABLE']]);
    expect(summary.daysScanned).toBe(59);

    let calls = 0;
    const rejecting: UpstreamApi = {
      ...deps.api,
      listActive: (o) => deps.api.listActive(o),
      historyPage: async (from, to, page, size, o) => {
        if (++calls > 3) throw new ArchiverError('AUTH_REJECTED', 'key revoked mid-run');
        return deps.api.historyPage(from, to, page, size, o);
      },
    };
    await expect(
      runArchive(
        { ...w.deps(), api: rejecting },
        { ...TEST_OPTIONS, dayConcurrency: 3, onlyDays: windowDays(toDay(w.clock.now())) },
      ),
    ).rejects.toMatchObject({ code: 'AUTH_REJECTED' });
    await expectArchiveExact(
      w,
      w.objects,
      windowDays(toDay(w.clock.now())).filter((d) => d !== bad),
    );
  });
});
