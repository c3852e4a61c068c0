import { describe, expect, it } from 'vitest';
import { putMetaSafely } from '../../lib/archive/run/finishRun.ts';
import type { ArchiveDeps } from '../../lib/archive/run/runTypes.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

const digest = (seq: number) => ({
  key: `digests/${String(seq).padStart(10, '0')}.json`,
  files: 0,
  seq,
  sha256: String(seq % 10).repeat(64),
  createdAt: '2026-11-20T00:00:00.000Z',
  settled: [],
});

/** A state store holding META of an archive first run on 2026-11-01, the deps a run hands putMetaSafely, and when it runs. */
async function withMeta() {
  const state = new MemoryStateStore();
  await state.putMeta({
    firstRunAt: '2026-11-01T00:00:00.000Z',
    firstWindowStart: '2026-09-02',
    version: 0,
  });
  const deps = {
    state,
    logger: silentLogger,
    clock: new ManualClock('2026-11-20T00:00:00.000Z'),
  } as unknown as ArchiveDeps;
  return { state, deps, at: new Date('2026-11-20T00:00:00.000Z') };
}

describe('putMetaSafely records the chain head in META', () => {
  it('never moves it backwards: a slower run that wrote an older digest leaves the newer head', async () => {
    const { state, deps, at } = await withMeta();
    await putMetaSafely(deps, at, true, digest(7));
    expect((await state.getMeta())?.chainHead?.seq).toBe(7);
    await putMetaSafely(deps, at, true, digest(5));
    expect((await state.getMeta())?.chainHead).toMatchObject({ seq: 7, sha256: '7'.repeat(64) });
    await putMetaSafely(deps, at, true, undefined);
    expect((await state.getMeta())?.chainHead?.seq).toBe(7);
    await putMetaSafely(deps, at, true, digest(8));
    expect((await state.getMeta())?.chainHead?.seq).toBe(8);
  });
});

describe('putMetaSafely records the reconciled head', () => {
  it('never moves it backwards: a slower reconciliation that wrote an older digest leaves the newer head', async () => {
    const { state, deps, at } = await withMeta();
    const head = async () => (await state.getMeta())?.reconciledHead;
    await putMetaSafely(deps, at, true, digest(7), true);
    expect(await head()).toMatchObject({ seq: 7, sha256: '7'.repeat(64) });
    await putMetaSafely(deps, at, true, digest(5), true);
    expect(await head()).toMatchObject({ seq: 7, sha256: '7'.repeat(64) });
    // A run that did not reconcile, or wrote no digest, leaves it.
    await putMetaSafely(deps, at, true, digest(8), false);
    await putMetaSafely(deps, at, true, undefined, true);
    expect((await head())?.seq).toBe(7);
    await putMetaSafely(deps, at, true, digest(9), true);
    expect((await head())?.seq).toBe(9);
  });
});
