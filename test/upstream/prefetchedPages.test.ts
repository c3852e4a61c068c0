import { describe, expect, it } from 'vitest';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { PrefetchedPages } from '../../lib/archive/upstream/prefetchedPages.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import type { Day } from '../../lib/foundation/clock/day.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

const DAY: Day = '2026-11-10';
const clock = new ManualClock('2026-11-20T12:00:00Z');
const upstream = () =>
  new ScriptedUpstream({ clock, days: new Map([[DAY, dayOfRecords(DAY, 250)]]), reshuffle: false });

describe('PrefetchedPages', () => {
  it('answers a request for a page sent ahead with that answer, once; any other request goes to the API', async () => {
    const api = upstream();
    const ahead = new PrefetchedPages(api);
    ahead.prefetch(DAY, 0, 100);
    ahead.prefetch(DAY, 0, 100); // the same page twice is sent once
    expect(api.requests).toEqual([{ day: DAY, page: 0, size: 100 }]);
    const first = await ahead.historyPage(DAY, DAY, 0, 100);
    expect(first.content).toHaveLength(100);
    expect(api.requests).toHaveLength(1);
    // Taken once: the same page again, or at another size, is a request of its own.
    await ahead.historyPage(DAY, DAY, 0, 100);
    await ahead.historyPage(DAY, DAY, 0, 50);
    expect(api.requests.map((r) => `${r.page}/${r.size}`)).toEqual(['0/100', '0/100', '0/50']);
  });

  it('hands the walk the error a page sent ahead ended with, as if the walk had sent it', async () => {
    const api = upstream();
    const failing = api.historyPage.bind(api);
    api.historyPage = async (...args) => {
      if (args[2] === 1) throw new ArchiverError('RATE_LIMITED', '429 after every retry');
      return failing(...args);
    };
    const ahead = new PrefetchedPages(api);
    ahead.prefetch(DAY, 1, 100);
    await new Promise(setImmediate); // rejected before anyone asks: no unhandled rejection
    await expect(ahead.historyPage(DAY, DAY, 1, 100)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('discard aborts the pages no walk took and waits for them to settle; a page a walk took is left alone', async () => {
    const api = upstream();
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const signals = new Map<number, AbortSignal | undefined>();
    const serve = api.historyPage.bind(api);
    // Each request waits for the test, or for its signal (as the real client's does).
    api.historyPage = async (from, to, page, size, o) => {
      signals.set(page, o?.signal);
      await new Promise<void>((resolve, reject) => {
        void held.then(resolve);
        o?.signal?.addEventListener('abort', () => reject(new ArchiverError('DEADLINE', 'aborted')));
      });
      return serve(from, to, page, size);
    };
    const ahead = new PrefetchedPages(api);
    const run = new AbortController();
    ahead.prefetch(DAY, 0, 100, { signal: run.signal });
    ahead.prefetch(DAY, 1, 100, { signal: run.signal });
    const taken = ahead.historyPage(DAY, DAY, 0, 100);
    await ahead.discard(); // settles without the test answering: page 1 was aborted
    expect(signals.get(1)?.aborted).toBe(true);
    expect(signals.get(0)?.aborted).toBe(false);
    answer();
    expect((await taken).content).toHaveLength(100);
    // Forgotten: page 1 again is a request of its own.
    await ahead.historyPage(DAY, DAY, 1, 100);
    expect(api.requests.map((r) => r.page)).toEqual([0, 1]);
  });

  it("aborts a page sent ahead with the caller's signal too (the run's deadline)", async () => {
    const api = upstream();
    let seen: AbortSignal | undefined;
    api.historyPage = async (_f, _t, _p, _s, o) => {
      seen = o?.signal;
      throw new ArchiverError('DEADLINE', 'aborted');
    };
    const ahead = new PrefetchedPages(api);
    const run = new AbortController();
    ahead.prefetch(DAY, 0, 100, { signal: run.signal });
    expect(seen?.aborted).toBe(false);
    run.abort();
    expect(seen?.aborted).toBe(true);
    await expect(ahead.historyPage(DAY, DAY, 0, 100)).rejects.toMatchObject({ code: 'DEADLINE' });
  });
});
