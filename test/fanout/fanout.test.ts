import { describe, expect, it } from 'vitest';
import { countingObjectStore } from '../../devkit/countingObjectStore.ts';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { readDigestChain } from '../../lib/archive/digest/readDigestChain.ts';
import { type FanoutItem, fanoutItemSchema } from '../../lib/archive/fanout/fanoutTypes.ts';
import { finishFanout } from '../../lib/archive/fanout/finishFanout.ts';
import { planFanout } from '../../lib/archive/fanout/planFanout.ts';
import { walkFanoutItem } from '../../lib/archive/fanout/walkFanoutItem.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import type { ArchiveOptions } from '../../lib/archive/run/runTypes.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { expectIdsExact, TEST_OPTIONS, TEST_TOKEN_KEY, testDeps } from '../support/engineKit.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { testSeed } from '../support/testSeed.ts';

const PAGES = 30;
const PER_PAGE = 10;

/** A giant day (30 pages of 10) beside an ordinary one, and the fan-out's three steps run in process. */
function world(reshuffle: boolean, seed: number, extra: Partial<ArchiveOptions> = {}) {
  const clock = new ManualClock('2026-11-20T06:00:00.000Z');
  const giant: Day = addDays(toDay(clock.now()), -5);
  const small: Day = addDays(toDay(clock.now()), -3);
  const days = new Map([
    [giant, dayOfRecords(giant, PAGES * PER_PAGE, 1_000)],
    [small, dayOfRecords(small, 25, 5_000)],
  ]);
  const api = new ScriptedUpstream({ clock, days, maxPageSize: PER_PAGE, reshuffle, seed });
  const state = new MemoryStateStore();
  const counted = countingObjectStore(new MemoryObjectStore());
  const objects = counted.objects;
  const truth = new Set(
    [...days.values()].flat().map((r) => recordId(historyRecordSchema.parse(r), TEST_TOKEN_KEY)),
  );
  /** Pages that fail (as an upstream outage past its retries would) while listed here. */
  const failing = new Set<number>();
  const deps = testDeps({
    api: {
      listActive: (o) => api.listActive(o),
      historyPage: async (from, to, page, size, o) => {
        if (from === giant && failing.has(page)) throw new ArchiverError('UPSTREAM_UNAVAILABLE', 'outage');
        return api.historyPage(from, to, page, size, o);
      },
    },
    objects,
    state,
    clock,
  });
  const options: ArchiveOptions = { ...TEST_OPTIONS, pageSize: 100, ...extra };
  let n = 0;
  /** One orchestration: plan, every item at once (as the map runs them), finish. */
  const orchestrate = async () => {
    const orchestrationId = `exec-${++n}`;
    const plan = await planFanout(deps, options, { orchestrationId, rangePages: 8, leaseTtlMs: 3_600_000 });
    const items: FanoutItem[] = fanoutItemSchema
      .array()
      .parse(JSON.parse(Buffer.from((await objects.get(plan.itemsKey)) ?? []).toString()));
    // The map: a failed item is isolated (caught), the others go on.
    const walked = await Promise.allSettled(
      items.map((item) =>
        walkFanoutItem(deps, options, {
          orchestrationId,
          lease: plan.lease,
          windowDays: plan.windowDays,
          item,
        }),
      ),
    );
    const summary = await finishFanout(deps, options, plan);
    clock.advance(60_000);
    return { plan, items, walked, summary };
  };
  return { giant, small, state, objects, counted, truth, orchestrate, deps, options, failing };
}

describe('fan-out in process (plan, map items at once, finish)', () => {
  it('splits a giant day into page ranges committed at once into the same partition, exactly once, one digest', async () => {
    const w = world(false, 1);
    const { items, summary } = await w.orchestrate();
    const ranges = items.filter((i) => i.kind === 'range');
    expect(ranges.map((r) => [r.from, r.to, r.last])).toEqual([
      [0, 8, false],
      [8, 16, false],
      [16, 24, false],
      [24, 30, true],
    ]);
    expect(new Set(ranges.map((r) => r.day))).toEqual(new Set([w.giant]));
    expect(summary.failedDays).toEqual([]);
    expect(await w.state.getDay(w.giant)).toMatchObject({ complete: true, scannedAges: [5] });
    expect(summary.digest?.seq).toBe(1);
    await expectIdsExact(w.objects, w.truth);
    // The lease is free again: a second orchestration runs (and adds nothing).
    const again = await w.orchestrate();
    expect(again.summary.recordsNew).toBe(0);
    expect((await readDigestChain(w.objects)).entries.map((e) => e.seq)).toEqual([1, 2]);
    // A retried finish step returns what it stored: no third digest.
    expect((await finishFanout(w.deps, w.options, again.plan)).digest?.seq).toBe(2);
    expect((await readDigestChain(w.objects)).entries.length).toBe(2);
    await expectIdsExact(w.objects, w.truth);
  });

  it('a range that fails is isolated: its day is recorded failed and counted, the rest goes on, the next orchestration completes it', async () => {
    const w = world(false, 3);
    w.failing.add(9);
    const first = await w.orchestrate();
    expect(first.walked.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(first.summary.failedDays).toEqual([
      expect.objectContaining({ day: w.giant, code: 'INTERNAL', attempts: 1 }),
    ]);
    expect((await w.state.getDay(w.giant))?.failure?.message).toMatch(/page range/);
    expect(await w.state.getDay(w.small)).toMatchObject({ complete: true });
    w.failing.clear();
    const second = await w.orchestrate();
    expect(second.summary.failedDays).toEqual([]);
    expect(await w.state.getDay(w.giant)).toMatchObject({ complete: true });
    expect((await w.state.getDay(w.giant))?.failure).toBeUndefined();
    await expectIdsExact(w.objects, w.truth);
  });

  it('a day whose ranges hold more ids than one finish step unions is recorded failed (DAY_TOO_BIG) before its union; the other days, the digest and the lease go on', async () => {
    const most = PAGES * PER_PAGE - 1;
    const w = world(false, 5, { finishMaxIds: most });
    const first = await w.orchestrate();
    expect(first.walked.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(first.summary.failedDays).toEqual([
      expect.objectContaining({ day: w.giant, code: 'DAY_TOO_BIG', attempts: 1 }),
    ]);
    expect((await w.state.getDay(w.giant))?.failure?.message).toContain(`up to ${PAGES * PER_PAGE} ids`);
    expect((await w.state.getDay(w.giant))?.complete).not.toBe(true);
    expect(await w.state.getDay(w.small)).toMatchObject({ complete: true });
    expect(first.summary.digest?.seq).toBe(1);
    // The ranges' rows were committed, once each; only the proof of the day is missing.
    await expectIdsExact(w.objects, w.truth);
    // The lease was given back: the next orchestration runs, fails the day again, and doubles nothing.
    const second = await w.orchestrate();
    expect(second.summary.failedDays).toEqual([
      expect.objectContaining({ day: w.giant, code: 'DAY_TOO_BIG', attempts: 2 }),
    ]);
    await expectIdsExact(w.objects, w.truth);
    // At the day's own size the union is taken and the day proven complete.
    const fits = world(false, 5, { finishMaxIds: PAGES * PER_PAGE });
    expect((await fits.orchestrate()).summary.failedDays).toEqual([]);
    expect(await fits.state.getDay(fits.giant)).toMatchObject({ complete: true });
  });

  it('counts the ids earlier passes carried toward that limit, not only the ranges of the pass', async () => {
    const seed = testSeed();
    const w = world(true, seed);
    // A first pass that missed some ids (the order reshuffles under it): its union is carried on.
    let carried: number | undefined;
    for (let runs = 0; runs < 40 && carried === undefined; runs++) {
      await w.orchestrate();
      const day = await w.state.getDay(w.giant);
      if (day?.complete) break;
      if (day?.walk && day.walk.passStart > 0) carried = day.walk.passStart;
    }
    if (carried === undefined) return expect.fail(`seed ${seed}: no pass was carried on`);
    // The limit is what is carried: the pass that adds any id to it must fail, never prove the day.
    w.options.finishMaxIds = carried;
    let failed = false;
    for (let runs = 0; runs < 40 && !failed; runs++) {
      const { summary } = await w.orchestrate();
      failed = summary.failedDays.some((d) => d.day === w.giant && d.code === 'DAY_TOO_BIG');
      expect((await w.state.getDay(w.giant))?.complete, `seed ${seed}`).not.toBe(true);
    }
    expect(failed, `seed ${seed}`).toBe(true);
  });

  it('an order reshuffled on every request: ranged passes go on over orchestrations until the union is proven, bounded', async () => {
    const seed = testSeed();
    const w = world(true, seed);
    let runs = 0;
    while (!(await w.state.getDay(w.giant))?.complete && runs < 40) {
      const { summary } = await w.orchestrate();
      expect(summary.failedDays, `seed ${seed}`).toEqual([]);
      runs++;
    }
    expect((await w.state.getDay(w.giant))?.complete, `seed ${seed}: after ${runs}`).toBe(true);
    await expectIdsExact(w.objects, w.truth);
  });

  it('a steady orchestration lists nothing: it works from the state it trusts and the files it noted', async () => {
    const w = world(false, 3);
    for (let i = 0; i < 4 && !(await w.state.getDay(w.giant))?.complete; i++) await w.orchestrate();
    const first = (await w.state.getMeta())?.chainHead;
    expect(first).toBeDefined();
    w.counted.reset();
    const { summary } = await w.orchestrate(); // nothing new: a steady orchestration
    expect(w.counted.counts.byMethod.list ?? 0).toBe(0);
    expect(summary.failedDays).toEqual([]);
    const chain = await readDigestChain(w.objects);
    expect(chain.entries.at(-1)?.seq).toBe((first?.seq ?? 0) + 1);
    await expectIdsExact(w.objects, w.truth);
  });
});
