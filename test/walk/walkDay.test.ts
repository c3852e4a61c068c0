import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  dayOfRecords,
  ScriptedUpstream,
  type ScriptedUpstreamOptions,
} from '../../devkit/scriptedUpstream.ts';
import { BARREN_PASSES } from '../../lib/archive/config/walkLimits.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { type KeyedRecord, keyRecord } from '../../lib/archive/records/keyedRecord.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import {
  DEFAULT_MAX_PASSES,
  DistinctRows,
  STALLED_PASSES,
  type WalkOptions,
  walkDay,
} from '../../lib/archive/walk/walkDay.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { walkOptions } from '../support/walkOptions.ts';

const DAY = '2026-11-10';
const KEY = new Uint8Array(32).fill(3);
const clock = new ManualClock('2026-11-20T12:00:00Z');

function options(extra: Partial<WalkOptions> = {}): WalkOptions {
  return walkOptions(KEY, clock, extra);
}

function server(count: number, extra: Partial<ScriptedUpstreamOptions> = {}): ScriptedUpstream {
  return new ScriptedUpstream({ clock, days: new Map([[DAY, dayOfRecords(DAY, count)]]), ...extra });
}

describe('walkDay', () => {
  it.each([
    {
      name: 'totals rounded down to whole pages (a cached COUNT)',
      count: 2050,
      cap: 1000,
      stale: 'floor-pages' as const,
    },
    { name: 'a count that lags by 30 rows', count: 1530, cap: 500, stale: 30 },
    { name: 'a count that lags by less than a page', count: 999, cap: 100, stale: 99 },
    { name: 'an exact multiple of the page size', count: 1000, cap: 500, stale: 0 },
  ])('collects every row despite $name', async ({ count, cap, stale }) => {
    const api = server(count, { maxPageSize: cap, staleTotals: stale });
    // The order is reshuffled on every request, so a pass misses each row with probability
    // Π(1 − page/count) (about 30% here): collecting every row is a coupon collector's walk.
    const walk = await walkDay(api, DAY, options({ maxPasses: 30 }));
    expect(walk.distinct).toBe(count);
    expect(walk.complete).toBe(true);
    expect(walk.unreliableTotals).toBe(stale !== 0);
    // Lying totals are only trusted once a whole pass added nothing.
    if (stale !== 0) expect(walk.passes).toBeGreaterThanOrEqual(2);
  });

  it('ends a pass only at a short page: the last page it fetched was short or empty', async () => {
    const api = server(2000, { maxPageSize: 500, reshuffle: false });
    const rows: ArchiveRow[] = [];
    const walk = await walkDay(api, DAY, options({ sink: new DistinctRows((row) => void rows.push(row)) }));
    // Rows (never raw records) reach the sink, each distinct record once.
    expect(rows).toHaveLength(2000);
    expect(new Set(rows.map((r) => r.record_id)).size).toBe(2000);
    expect(rows[0]).toMatchObject({
      token_value: null,
      token_hmac: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(walk.complete).toBe(true);
    expect(walk.passes).toBe(1);
    // Four full pages of 500, then page 4 comes back empty: only then is the day done.
    expect(api.requests.map((r) => r.page).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('tells the sink the reported total once, on the first page of the first pass', async () => {
    const hints: [string, number][] = [];
    const sink = new DistinctRows(() => undefined);
    const withHint = {
      add: (r: KeyedRecord) => sink.add(r),
      expect: (d: string, n: number) => void hints.push([d, n]),
      get distinct() {
        return sink.distinct;
      },
    };
    const walk = await walkDay(
      server(1530, { maxPageSize: 500, staleTotals: 30 }),
      DAY,
      options({ sink: withHint }),
    );
    expect(walk.passes).toBeGreaterThan(1);
    expect(hints).toEqual([[DAY, 1500]]);
  });

  it.each([1, 2, 3])(
    'collects a 20,000-row day reshuffled on every request within the default pass cap (seed %i)',
    async (seed) => {
      const api = server(20_000, { maxPageSize: 500, seed });
      const walk = await walkDay(api, DAY, options({ maxPasses: DEFAULT_MAX_PASSES, maxPagesPerDay: 1000 }));
      expect(walk.distinct).toBe(20_000);
      expect(walk.complete).toBe(true);
      expect(walk.shortfall).toBe(0);
      // Each pass sees a row with probability about 1 − 1/e: ln(20,000) ≈ 10 passes leave rows behind.
      expect(walk.passes).toBeGreaterThan(5);
    },
  );

  it('stops after STALLED_PASSES passes that add nothing while a total stays above the rows, with the shortfall', async () => {
    const api = server(300, { maxPageSize: 100, reshuffle: false });
    const page = api.historyPage.bind(api);
    api.historyPage = async (...args) => ({ ...(await page(...args)), totalElements: 305 });
    const walk = await walkDay(api, DAY, options({ maxPasses: DEFAULT_MAX_PASSES }));
    expect(walk.distinct).toBe(300);
    expect(walk.complete).toBe(false);
    expect(walk.shortfall).toBe(5);
    expect(walk.passes).toBe(1 + STALLED_PASSES);
  });

  it.each([
    { copies: [7], total: undefined },
    { copies: [7, 7, 120], total: undefined },
    { copies: [7], total: 260 },
  ])(
    'holds each record once and stops after STALLED_PASSES, short, when the server holds rows twice (copies of $copies, total $total)',
    async ({ copies, total }) => {
      const records = dayOfRecords(DAY, 250);
      // Records alike in every field: one `record_id`, as a server that stored a session twice serves it.
      for (const i of copies) records.push({ ...(records[i] as (typeof records)[number]) });
      const api = new ScriptedUpstream({
        clock,
        days: new Map([[DAY, records]]),
        maxPageSize: 100,
        reshuffle: false,
      });
      if (total !== undefined) {
        // A COUNT stuck above even the rows served twice.
        const page = api.historyPage.bind(api);
        api.historyPage = async (...args) => ({ ...(await page(...args)), totalElements: total });
      }
      const walk = await walkDay(api, DAY, options({ maxPasses: DEFAULT_MAX_PASSES }));
      const shortfall = (total ?? 250 + copies.length) - 250;
      expect(walk).toMatchObject({ distinct: 250, complete: false, shortfall });
      // The pass that adds the rows, one that adds none, then the stall streak: not all `MAX_PASSES`.
      expect(walk.passes).toBe(2 + STALLED_PASSES);
    },
  );

  it.each([4, 11, 23])(
    'ends short after BARREN_PASSES passes that add nothing, each record held once, when a reshuffle on every request hides which rows came twice (seed %i)',
    async (seed) => {
      const records = dayOfRecords(DAY, 250);
      records.push({ ...(records[7] as (typeof records)[number]) });
      const api = new ScriptedUpstream({ clock, days: new Map([[DAY, records]]), maxPageSize: 100, seed });
      // The pass that last served a record not served before: a row is new to the walk exactly then.
      const page = api.historyPage.bind(api);
      const served = new Set<string>();
      let pass = 0;
      let lastAdding = 0;
      api.historyPage = async (from, to, n, ...rest) => {
        if (n === 0) pass++;
        const answer = await page(from, to, n, ...rest);
        for (const r of answer.content) {
          const key = JSON.stringify(r);
          if (!served.has(key)) lastAdding = pass;
          served.add(key);
        }
        return answer;
      };
      const walk = await walkDay(api, DAY, options({ maxPasses: DEFAULT_MAX_PASSES }));
      // A pass of three random pages serves about 78% of the rows: a row held twice and a row not yet served
      // look alike, so the rows the pages prove are not given up; ten passes that add nothing end the walk.
      expect(walk).toMatchObject({ distinct: 250, complete: false, shortfall: 1 });
      expect(served.size).toBe(250);
      expect(walk.passes).toBe(lastAdding + BARREN_PASSES);
      expect(walk.passes).toBeLessThan(DEFAULT_MAX_PASSES);
    },
  );

  it('turns an absurd totalPages into PAGE_LIMIT for that day', async () => {
    const api = server(10, { totalPagesOverride: 1_000_000 });
    await expect(walkDay(api, DAY, options({ maxPagesPerDay: 100 }))).rejects.toMatchObject({
      code: 'PAGE_LIMIT',
    });
  });

  it('turns a server that never returns a short page into PAGE_LIMIT', async () => {
    const endless: ScriptedUpstream = server(0);
    const full = dayOfRecords(DAY, 10);
    endless.historyPage = async (_f, _t, page) => ({
      totalElements: 10,
      totalPages: 1,
      size: 10,
      content: full.map((r) => ({ ...r, client_ip: `[10.1.1.1]:${page}` })) as never,
      rejected: [],
      number: page,
      sort: { empty: true, sorted: false, unsorted: true },
      pageable: {
        pageNumber: page,
        pageSize: 10,
        sort: { empty: true, sorted: false, unsorted: true },
        offset: page * 10,
        paged: true,
        unpaged: false,
      },
      numberOfElements: 10,
      first: page === 0,
      last: false,
      empty: false,
    });
    await expect(walkDay(endless, DAY, options({ maxPagesPerDay: 20 }))).rejects.toMatchObject({
      code: 'PAGE_LIMIT',
    });
  });

  it('returns what it holds, marked interrupted, when the deadline aborts it', async () => {
    const controller = new AbortController();
    const api = server(3000, {
      maxPageSize: 500,
      reshuffle: false,
      beforeRequest: (_d, page) => {
        if (page === 3) controller.abort();
      },
    });
    // A budget whose signal the test fires (as the real one fires on time): the abort alone cuts the walk.
    const budget = {
      endsAt: undefined,
      reserveMs: 0,
      keepMs: 0,
      stopAt: undefined,
      spent: () => false,
      signal: () => controller.signal,
      startCommit: () => () => undefined,
    };
    const walk = await walkDay(api, DAY, options({ budget, concurrency: 1 }));
    expect(walk.interrupted).toBe(true);
    expect(walk.complete).toBe(false);
    expect(walk.distinct).toBe(1500);
  });

  it('keeps `concurrency` requests in flight while pages are absorbed, never more, holding at most 2 pages a request', async () => {
    const inner = server(1000, { maxPageSize: 100, reshuffle: false });
    let inFlight = 0;
    let maxInFlight = 0;
    const api: UpstreamApi = {
      listActive: () => inner.listActive(),
      historyPage: async (...args) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          return await inner.historyPage(...args);
        } finally {
          inFlight--;
        }
      },
    };
    // After the first page, every row blocks its page's absorb until released (a slow encoder).
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rows = new DistinctRows((row) =>
      row.record_id && inner.requests.length > 1 ? blocked : undefined,
    );
    const walking = walkDay(api, DAY, options({ concurrency: 2, sink: rows }));
    // Pages 0 and 1 at once (a day never scanned is guessed to be more than a page), then 2 requests at a
    // time until 4 fetched pages, page 0 among them, wait in absorb: 2 × 2 requests.
    await vi.waitFor(() => expect(inner.requests.length).toBe(4));
    for (let i = 0; i < 20; i++) await new Promise(setImmediate);
    expect(inner.requests.length).toBe(4);
    expect(inFlight).toBe(0);
    release();
    const walk = await walking;
    expect(walk.distinct).toBe(1000);
    expect(walk.complete).toBe(true);
    expect(maxInFlight).toBe(2);
  });

  it('holds a request slot only for the exchange an adapter runs in its gate, not while the page is parsed', async () => {
    const inner = server(1000, { maxPageSize: 100, reshuffle: false });
    let inFlight = 0;
    let maxInFlight = 0;
    // Pages from 2 on are "parsed" (after their exchange, outside the gate) only when the test says so.
    let parse: () => void = () => undefined;
    const parsing = new Promise<void>((resolve) => {
      parse = resolve;
    });
    const api: UpstreamApi = {
      listActive: () => inner.listActive(),
      historyPage: async (from, to, page, size, o) => {
        const exchange = async () => {
          maxInFlight = Math.max(maxInFlight, ++inFlight);
          try {
            return await inner.historyPage(from, to, page, size);
          } finally {
            inFlight--;
          }
        };
        const got = o?.gate ? await o.gate.run(exchange) : await exchange();
        if (page >= 2) await parsing;
        return got;
      },
    };
    const walking = walkDay(api, DAY, options({ concurrency: 2 }));
    // Pages 2 and 3 wait in their parse without a slot: the walk's other page tasks (2 × concurrency
    // in all) still get their requests out; with the slot held through the parse it would stop at 4.
    await vi.waitFor(() => expect(inner.requests.length).toBe(6));
    for (let i = 0; i < 20; i++) await new Promise(setImmediate);
    expect(inner.requests.length).toBe(6);
    parse();
    const walk = await walking;
    expect(walk.distinct).toBe(1000);
    expect(walk.complete).toBe(true);
    expect(maxInFlight).toBe(2);
  });

  it('lets the event loop in while it absorbs a long page', async () => {
    const api = server(2000, { reshuffle: false });
    let taken = 0;
    let takenWhenLoopRan: number | undefined;
    const sink = new DistinctRows(() => {
      if (taken++ === 0) setImmediate(() => (takenWhenLoopRan = taken));
      return undefined;
    });
    await walkDay(api, DAY, options({ sink }));
    expect(taken).toBe(2000);
    // A callback queued at the page's first row ran long before the page's last row.
    expect(takenWhenLoopRan).toBeLessThanOrEqual(256);
  });

  it('quarantines an item that passes the schema but cannot become a row, and goes on', async () => {
    const api = server(30, { maxPageSize: 10, reshuffle: false });
    let n = 0;
    const walk = await walkDay(
      api,
      DAY,
      options({
        tokenKey: KEY,
        keyRecord: (r) => {
          // The fourth record cannot become a row (as one whose mapping throws: `keyRecord`).
          if (n++ === 3) return { ok: false, reason: 'cannot map to an archive row: cannot map' };
          return keyRecord(r, { tokenPolicy: 'hash', tokenKey: KEY, archivedAt: clock.now() });
        },
      }),
    );
    expect(walk.distinct).toBe(29);
    expect(walk.rejected.size).toBe(1);
    expect([...walk.rejected.values()][0]?.reason).toContain('cannot map');
  });

  it('property: any row count, page cap and stale total yields exactly the day, reshuffled between requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 7, max: 120 }),
        fc.oneof(fc.constant<'floor-pages'>('floor-pages'), fc.integer({ min: 0, max: 150 })),
        fc.integer({ min: 1, max: 1000 }),
        async (count, cap, stale, seed) => {
          const api = server(count, { maxPageSize: cap, staleTotals: stale, seed });
          const walk = await walkDay(api, DAY, options({ maxPasses: 60, maxPagesPerDay: 1000 }));
          expect(walk.distinct).toBe(count);
          expect(walk.complete).toBe(true);
        },
      ),
      // The first example once kept a third of the rows out of every page (a degenerate fake shuffle).
      { numRuns: 40, examples: [[276, 7, 'floor-pages', 9]] },
    );
  });
});
