import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import type { HistoryPage } from '../../lib/archive/records/schemas.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import { type WalkOptions, walkDay } from '../../lib/archive/walk/walkDay.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { walkOptions } from '../support/walkOptions.ts';

// Requests asked ahead: page 1 beside page 0, and the empty page that proves the end of a whole number of
// pages beside the others. Each saves a round trip a day; none may cost more than the one request a
// stable walk may spend beyond `totalPages`, or leave a request in flight when the walk ends.

const clock = new ManualClock(new Date('2026-03-10T12:00:00Z'));
const DAY = '2026-03-01' as const;
const KEY = new TextEncoder().encode('walk-ahead-test-key-0123456789ab');

function options(extra: Partial<WalkOptions> = {}): WalkOptions {
  return walkOptions(KEY, clock, { pageSize: 500, ...extra });
}

function server(count: number, maxPageSize = 500): ScriptedUpstream {
  return new ScriptedUpstream({
    clock,
    days: new Map([[DAY, dayOfRecords(DAY, count)]]),
    maxPageSize,
    reshuffle: false,
  });
}

/** Every request waits until the test lets it through; the test sees which are in flight. */
class GatedApi implements UpstreamApi {
  readonly asked: number[] = [];
  readonly #waiting = new Map<number, () => void>();
  readonly #inner: UpstreamApi;
  readonly #answer: (page: number, size: number) => Promise<HistoryPage> | undefined;

  constructor(
    inner: UpstreamApi,
    answer: (page: number, size: number) => Promise<HistoryPage> | undefined = () => undefined,
  ) {
    this.#inner = inner;
    this.#answer = answer;
  }

  get inFlight(): number[] {
    return [...this.#waiting.keys()].sort((a, b) => a - b);
  }

  listActive() {
    return this.#inner.listActive();
  }

  async historyPage(from: typeof DAY, to: typeof DAY, page: number, size: number): Promise<HistoryPage> {
    this.asked.push(page);
    await new Promise<void>((resolve) => this.#waiting.set(page, resolve));
    this.#waiting.delete(page);
    return this.#answer(page, size) ?? this.#inner.historyPage(from, to, page, size);
  }

  /** Lets page `n` through once it is in flight. */
  async release(n: number): Promise<void> {
    await until(() => this.#waiting.has(n), `page ${n} to be asked for (in flight: ${this.inFlight})`);
    this.#waiting.get(n)?.();
    this.#waiting.delete(n);
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise(setImmediate);
  if (!condition()) throw new Error(`gave up waiting for ${what}`);
}

describe('walkDay asks ahead', () => {
  it('asks for page 1 beside page 0 on a day never scanned, and a stable day costs exactly totalPages', async () => {
    const api = new GatedApi(server(1400));
    const walking = walkDay(api, DAY, options());
    await until(() => api.inFlight.length === 2, 'two requests');
    // Both before page 0 has answered: the second round trip of the day is saved.
    expect(api.inFlight).toEqual([0, 1]);
    await api.release(0);
    await api.release(1);
    await api.release(2);
    const walk = await walking;
    expect(walk.distinct).toBe(1400);
    expect(walk.complete).toBe(true);
    expect(api.asked.sort()).toEqual([0, 1, 2]);
  });

  it('asks for page 0 alone when the last scan fit in one page, or with one request in flight at most', async () => {
    for (const extra of [{ expectedTotal: 300 }, { concurrency: 1 }]) {
      const api = server(300);
      const walk = await walkDay(api, DAY, options(extra));
      expect(walk.complete).toBe(true);
      expect(api.requests.map((r) => r.page)).toEqual([0]);
    }
    // A day that grew past one page since its last scan is still walked whole.
    const grown = server(1200);
    const walk = await walkDay(grown, DAY, options({ expectedTotal: 300 }));
    expect(walk.distinct).toBe(1200);
    expect(grown.requests.map((r) => r.page)).toEqual([0, 1, 2]);
  });

  it('a wrong guess (one page after all) costs one request, within totalPages + 1', async () => {
    const api = server(300);
    const walk = await walkDay(api, DAY, options());
    expect(walk.distinct).toBe(300);
    expect(walk.complete).toBe(true);
    expect(api.requests.map((r) => r.page).sort()).toEqual([0, 1]);
  });

  it('asks for the empty page after a whole number of pages with the others, not after them', async () => {
    const api = new GatedApi(server(1500));
    const walking = walkDay(api, DAY, options());
    await api.release(0);
    await api.release(1);
    // Pages 2 and 3 (the empty page after 3 full ones) are in flight together.
    await until(() => api.inFlight.length === 2, 'pages 2 and 3');
    expect(api.inFlight).toEqual([2, 3]);
    await api.release(2);
    await api.release(3);
    const walk = await walking;
    expect(walk.distinct).toBe(1500);
    expect(walk.complete).toBe(true);
    expect(api.asked.sort()).toEqual([0, 1, 2, 3]);
  });

  it('asks for the guessed page again when the server echoed another size for it', async () => {
    const capped = server(1400, 400);
    let first = true;
    const api = new GatedApi(server(1400), (page, size) => {
      if (page !== 1 || !first) return undefined;
      first = false;
      // The server cut this one answer at 400 rows: it is not page 1 of a pass cut at 500.
      return capped.historyPage(DAY, DAY, page, size);
    });
    const walking = walkDay(api, DAY, options());
    await api.release(0);
    await api.release(1);
    await api.release(1);
    await api.release(2);
    const walk = await walking;
    expect(walk.distinct).toBe(1400);
    expect(walk.complete).toBe(true);
    expect(api.asked.sort()).toEqual([0, 1, 1, 2]);
  });

  it('property: on a stable server any day is walked whole in at most totalPages + 1 requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 600 }),
        fc.integer({ min: 7, max: 150 }),
        fc.integer({ min: 5, max: 200 }),
        fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
        fc.integer({ min: 1, max: 4 }),
        async (count, cap, pageSize, expectedTotal, concurrency) => {
          const api = server(count, cap);
          const walk = await walkDay(
            api,
            DAY,
            options({
              pageSize,
              concurrency,
              maxPagesPerDay: 1000,
              ...(expectedTotal === undefined ? {} : { expectedTotal }),
            }),
          );
          expect(walk.distinct).toBe(count);
          expect(walk.complete).toBe(true);
          const totalPages = Math.max(1, Math.ceil(count / Math.min(cap, pageSize)));
          expect(api.requests.length).toBeLessThanOrEqual(totalPages + 1);
        },
      ),
      { numRuns: 150, seed: 22 },
    );
  });

  it('leaves no request in flight when page 0 fails: the walk fails once the guess has settled', async () => {
    const api = new GatedApi(server(1400), (page) =>
      page === 0
        ? Promise.reject(new ArchiverError('UPSTREAM_UNAVAILABLE', 'HTTP 503 after retries'))
        : undefined,
    );
    let settled = false;
    const walking = walkDay(api, DAY, options()).finally(() => {
      settled = true;
    });
    walking.catch(() => undefined);
    await api.release(0);
    for (let i = 0; i < 20; i++) await new Promise(setImmediate);
    // Page 1 is still in flight: the walk has not given up yet.
    expect(api.inFlight).toEqual([1]);
    expect(settled).toBe(false);
    await api.release(1);
    await expect(walking).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
  });
});
