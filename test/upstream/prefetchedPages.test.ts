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

  describe('a pass sent ahead (prefetchPass)', () => {
    /** The API with every answer held until `answerNext`, oldest first; counts the requests in flight. */
    function heldApi() {
      const api = upstream();
      const serve = api.historyPage.bind(api);
      const waiting: (() => void)[] = [];
      let inFlight = 0;
      let most = 0;
      const sent: number[] = [];
      api.historyPage = async (from, to, page, size, o) => {
        sent.push(page);
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          await new Promise<void>((resolve, reject) => {
            waiting.push(resolve);
            o?.signal?.addEventListener('abort', () => reject(new ArchiverError('DEADLINE', 'aborted')));
          });
          if (page === 99) throw new ArchiverError('UPSTREAM_UNAVAILABLE', '503 after every retry');
          return await serve(from, to, page, size);
        } finally {
          inFlight--;
        }
      };
      const answerNext = async (): Promise<void> => {
        waiting.shift()?.();
        for (let i = 0; i < 5; i++) await new Promise(setImmediate);
      };
      return { api, sent, answerNext, mostInFlight: () => most };
    }

    it('sends the pages in order, each answer sending the next, never more than `inFlight` at once', async () => {
      const { api, sent, answerNext, mostInFlight } = heldApi();
      const ahead = new PrefetchedPages(api);
      ahead.prefetchPass(DAY, [3, 4, 5, 6, 7], 10, 2);
      expect(sent).toEqual([3, 4]);
      await answerNext();
      expect(sent).toEqual([3, 4, 5]);
      for (let i = 0; i < 6; i++) await answerNext();
      expect(sent).toEqual([3, 4, 5, 6, 7]);
      expect(mostInFlight()).toBe(2);
      // The walk takes every one of them without a request of its own.
      for (const page of [3, 4, 5, 6, 7])
        expect((await ahead.historyPage(DAY, DAY, page, 10)).content).toHaveLength(10);
      expect(sent).toHaveLength(5);
    });

    it('goes on sending while the walk takes the pages sent ahead (the server is never left idle meanwhile)', async () => {
      const { api, sent, answerNext, mostInFlight } = heldApi();
      const ahead = new PrefetchedPages(api);
      ahead.prefetchPass(DAY, [3, 4, 5, 6, 7], 10, 2);
      const taken = ahead.historyPage(DAY, DAY, 3, 10);
      await answerNext();
      expect((await taken).content).toHaveLength(10);
      expect(sent).toEqual([3, 4, 5]);
      await answerNext();
      expect((await ahead.historyPage(DAY, DAY, 4, 10)).content).toHaveLength(10);
      expect(sent).toEqual([3, 4, 5, 6]);
      expect(mostInFlight()).toBe(2);
    });

    it('stops sending once the walk asks for a page not sent ahead: it sends its own from then on, none twice', async () => {
      const { api, sent, answerNext } = heldApi();
      const ahead = new PrefetchedPages(api);
      ahead.prefetchPass(DAY, [3, 4, 5, 6, 7], 10, 2);
      // The walk is ahead of the pass: page 5 was not sent yet, so the walk sends it, and the pass stops.
      const own = ahead.historyPage(DAY, DAY, 5, 10);
      expect(sent).toEqual([3, 4, 5]);
      for (let i = 0; i < 4; i++) await answerNext();
      expect(sent).toEqual([3, 4, 5]);
      expect((await own).content).toHaveLength(10);
      // The pages sent before it are still the walk's to take.
      expect((await ahead.historyPage(DAY, DAY, 3, 10)).content).toHaveLength(10);
      expect(sent).toEqual([3, 4, 5]);
    });

    it.each([
      ['discard', (ahead: PrefetchedPages) => void ahead.discard()],
      ["the caller's signal", (_ahead: PrefetchedPages, run: AbortController) => run.abort()],
    ])('stops sending at %s', async (_what, stop) => {
      const { api, sent, answerNext } = heldApi();
      const ahead = new PrefetchedPages(api);
      const run = new AbortController();
      ahead.prefetchPass(DAY, [3, 4, 5, 6, 7], 10, 2, { signal: run.signal });
      stop(ahead, run);
      await answerNext();
      await answerNext();
      expect(sent).toEqual([3, 4]);
    });

    it("sends the first `inFlight` pages, then more only while `sendWhile` says yes (the run's time)", async () => {
      const { api, sent, answerNext } = heldApi();
      const ahead = new PrefetchedPages(api);
      let yes = 2;
      ahead.prefetchPass(DAY, [3, 4, 5, 6, 7], 10, 2, { sendWhile: () => yes-- > 0 });
      expect(sent).toEqual([3, 4]);
      for (let i = 0; i < 5; i++) await answerNext();
      expect(sent).toEqual([3, 4, 5, 6]);
    });

    /**
     * The API as the real client runs: each attempt's exchange inside the caller's gate, held until
     * `endExchange`; the answer parsed after it, held until `parse`. Page 4's first attempt is answered
     * with a 429 and tried again. Counts the exchanges in flight.
     */
    function gatedApi() {
      const api = upstream();
      const serve = api.historyPage.bind(api);
      const exchanges: { page: number; end: () => void }[] = [];
      const parses: { page: number; done: () => void }[] = [];
      const sent: number[] = [];
      let open = 0;
      let most = 0;
      const tries = new Map<number, number>();
      api.historyPage = async (from, to, page, size, o) => {
        const gate = o?.gate ?? { run: <E>(exchange: () => Promise<E>) => exchange() };
        for (;;) {
          const status = await gate.run(async () => {
            sent.push(page);
            open++;
            most = Math.max(most, open);
            await new Promise<void>((end) => exchanges.push({ page, end }));
            open--;
            const n = (tries.get(page) ?? 0) + 1;
            tries.set(page, n);
            return page === 4 && n === 1 ? 429 : 200;
          });
          if (status === 200) break;
        }
        await new Promise<void>((done) => parses.push({ page, done }));
        return serve(from, to, page, size);
      };
      const settle = async () => {
        for (let i = 0; i < 5; i++) await new Promise(setImmediate);
      };
      const endExchange = async (page: number) => {
        const at = exchanges.findIndex((e) => e.page === page);
        if (at < 0) throw new Error(`no exchange of page ${page} in flight`);
        exchanges.splice(at, 1)[0]?.end();
        await settle();
      };
      const parse = async (page: number) => {
        const at = parses.findIndex((p) => p.page === page);
        if (at < 0) throw new Error(`page ${page} is not being parsed`);
        parses.splice(at, 1)[0]?.done();
        await settle();
      };
      return { api, sent, endExchange, parse, mostInFlight: () => most };
    }

    it("sends the next page once a page's exchange ends, before it is parsed; retries keep to `inFlight`", async () => {
      const { api, sent, endExchange, parse, mostInFlight } = gatedApi();
      const ahead = new PrefetchedPages(api);
      ahead.prefetchPass(DAY, [3, 4, 5, 6, 7], 10, 2);
      await new Promise(setImmediate);
      expect(sent).toEqual([3, 4]);
      // Page 3's body is read; its parse has not run: page 5 is on its way already.
      await endExchange(3);
      expect(sent).toEqual([3, 4, 5]);
      // Page 4 was answered 429: it sends page 6, and its own retry waits for a slot (2 exchanges at once).
      await endExchange(4);
      expect(sent).toEqual([3, 4, 5, 6]);
      await endExchange(5);
      expect(sent).toEqual([3, 4, 5, 6, 4]);
      // Every page's answer still comes parsed, to the walk that takes it.
      for (const page of [6, 4]) await endExchange(page);
      await endExchange(7);
      for (const page of [3, 4, 5, 6, 7]) await parse(page);
      for (const page of [3, 4, 5, 6, 7])
        expect((await ahead.historyPage(DAY, DAY, page, 10)).content).toHaveLength(10);
      expect(sent).toEqual([3, 4, 5, 6, 4, 7]);
      expect(mostInFlight()).toBe(2);
    });

    it('stops sending at a page that failed; the walk gets its error', async () => {
      const { api, sent, answerNext } = heldApi();
      const ahead = new PrefetchedPages(api);
      ahead.prefetchPass(DAY, [99, 4, 5, 6], 10, 1);
      await answerNext();
      await answerNext();
      expect(sent).toEqual([99]);
      await expect(ahead.historyPage(DAY, DAY, 99, 10)).rejects.toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
      });
    });
  });
});
