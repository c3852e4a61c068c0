import { describe, expect, it } from 'vitest';
import type { StoreCounts } from '../../devkit/countingObjectStore.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import { updateMeta } from '../../lib/archive/state/updateMeta.ts';
import { addDays, toDay } from '../../lib/foundation/clock/day.ts';
import { countedAgedArchive } from '../support/countedAgedArchive.ts';
import type { StateCounts } from '../support/countingStateStore.ts';
import { TEST_OPTIONS } from '../support/engineKit.ts';

const START = '2026-11-20T06:00:00.000Z';
const WEEK_MS = 7 * 86_400_000;

interface Counted {
  summary: RunSummary;
  objects: StoreCounts;
  state: StateCounts;
}

/** An archive `ageDays` old (`agedArchive`), with counting stores and a run that counts what it sends. */
async function agedRig(ageDays: number) {
  const { clock, deps, objects, state } = await countedAgedArchive(START, ageDays);
  /** A week later, the run (a reconciliation is due): what it sent. */
  const weekLater = async (): Promise<Counted> => {
    clock.advance(WEEK_MS);
    objects.reset();
    state.reset();
    const summary = await runArchive(deps, TEST_OPTIONS);
    expect(summary.failedDays).toEqual([]);
    return { summary, objects: structuredClone(objects.counts), state: structuredClone(state.counts) };
  };
  return { clock, deps, weekLater };
}

describe('the weekly reconciliation', () => {
  it('costs the same requests and state reads at 100 and 400 days once its head is recorded; the first one is full', async () => {
    const figures = [];
    for (const age of [100, 400]) {
      const rig = await agedRig(age);
      // As an archive older than the recorded head leaves META: no head.
      await updateMeta(rig.deps.state, ({ reconciledHead: _head, ...meta }) => meta);
      const full = await rig.weekLater();
      const recorded = (await rig.deps.state.getMeta())?.reconciledHead;
      expect(recorded?.seq).toBe(full.summary.digest?.seq);
      const weekly = await rig.weekLater();
      figures.push({ full, weekly });
    }
    const [young, old] = figures as [(typeof figures)[0], (typeof figures)[0]];
    // The first reconciliation, with nothing recorded, reads everything: it grows with the archive.
    expect(old.full.objects.requests).toBeGreaterThan(young.full.objects.requests);
    expect(old.full.state.itemsListed).toBeGreaterThan(young.full.state.itemsListed);
    // The next one works from the chain since: the same requests, whatever the archive's age.
    expect(young.weekly.objects.requests).toBeGreaterThan(0);
    expect(old.weekly.objects.byMethod).toEqual(young.weekly.objects.byMethod);
    expect(old.weekly.objects.requests).toBe(young.weekly.objects.requests);
    expect(old.weekly.state.byMethod).toEqual(young.weekly.state.byMethod);
    expect(old.weekly.state.itemsListed).toBe(young.weekly.state.itemsListed);
    expect(old.weekly.state.byMethod.listPartitions).toBeUndefined();
    expect(old.weekly.state.byMethod.listDays).toBeUndefined();
  });

  it('still finds a file planted after the last reconciliation, as a full reconciliation does', async () => {
    const rig = await agedRig(100);
    await rig.weekLater(); // a reconciliation records its head
    // A partition of the window the archiver wrote (its manifest exists).
    const planted = `history/dt=${addDays(toDay(new Date(START)), -1)}/20990101T000000Z-planted-0.parquet`;
    await rig.deps.objects.put(planted, new Uint8Array([1, 2, 3]));
    const weekly = await rig.weekLater();
    expect(weekly.state.byMethod.listPartitions).toBeUndefined();
    expect(weekly.summary.foreignFiles).toEqual([planted]);
    // A steady run in between does not see it: only the reconciliation lists what was written.
    rig.clock.advance(3_600_000);
    expect((await runArchive(rig.deps, TEST_OPTIONS)).foreignFiles).toBeUndefined();
  });

  it('reconciles in full when the chain since the recorded head is not the one recorded', async () => {
    const rig = await agedRig(100);
    const bounded = await rig.weekLater();
    expect(bounded.state.byMethod.listPartitions).toBeUndefined();
    // The digest at the recorded head is not the one that reconciliation wrote (rewritten since).
    await updateMeta(rig.deps.state, (m) =>
      m.reconciledHead
        ? { ...m, reconciledHead: { ...m.reconciledHead, sha256: '0'.repeat(64) } }
        : undefined,
    );
    const full = await rig.weekLater();
    expect(full.state.byMethod.listPartitions).toBeGreaterThan(0);
    expect((await rig.deps.state.getMeta())?.reconciledHead?.seq).toBe(full.summary.digest?.seq);
  });

  it('moves the recorded head forward, and never back', async () => {
    const rig = await agedRig(100);
    const heads: number[] = [];
    for (let week = 0; week < 3; week++) {
      await rig.weekLater();
      heads.push((await rig.deps.state.getMeta())?.reconciledHead?.seq ?? 0);
    }
    expect(heads[0]).toBeGreaterThan(0);
    expect(heads).toEqual([...heads].sort((a, b) => a - b));
    expect(new Set(heads).size).toBe(heads.length);
  });
});
