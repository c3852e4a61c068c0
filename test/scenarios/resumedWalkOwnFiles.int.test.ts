import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countingObjectStore } from '../../devkit/countingObjectStore.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { DayState } from '../../lib/archive/state/dayState.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { expectIdsExact, TEST_TOKEN_KEY, testDeps } from '../support/engineKit.ts';
import { bigDayWorld } from './bigDayWorld.ts';

const SESSIONS = 4_000;
/** 15 pages a run: (800 − 500) ms ÷ 40 ms × 2 in flight; the day's 41 pages take 3 runs or more. */
const MAX_RUN_MS = 800;
const RESERVE_MS = 500;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One run of the day: the data files it read, and the files listed before and after it. */
interface RunSeen {
  read: Set<string>;
  before: Set<string>;
  added: Set<string>;
  after: DayState | undefined;
}

/** A day bigger than one run, archived run by run (6 simulated hours apart) into a local archive. */
async function ownFilesWorld() {
  const { clock, emulator, dir, local, day, latency, http, runAt, options } = await bigDayWorld(SESSIONS, {
    faults: { stableOrder: true },
    dirPrefix: 'ta-ownfiles-',
    cleanups,
  });
  const store = countingObjectStore(createFileObjectStore(join(dir, 'archive')));
  const api = latency.api(http);
  /** The data files every history partition lists. */
  const listed = async (): Promise<Set<string>> => {
    const names = new Set<string>();
    for (const m of await local.state.listPartitions())
      if ((m.dataset ?? 'history') === 'history') for (const f of m.files) names.add(f.name);
    return names;
  };
  let n = 0;
  const run = async (): Promise<RunSeen> => {
    runAt(n++);
    const before = await listed();
    store.reset();
    await runArchive(
      testDeps({ api, objects: store.objects, state: local.state, clock }),
      options(MAX_RUN_MS, RESERVE_MS),
    );
    const read = new Set(
      [...store.counts.keysRead]
        .filter((k) => k.endsWith('.parquet'))
        .map((k) => k.slice(k.lastIndexOf('/') + 1)),
    );
    const after = await listed();
    return {
      read,
      before,
      added: new Set([...after].filter((f) => !before.has(f))),
      after: await local.state.getDay(day),
    };
  };
  const finish = async (): Promise<RunSeen[]> => {
    const runs: RunSeen[] = [];
    while (!(await local.state.getDay(day))?.complete && runs.length < 10) runs.push(await run());
    expect(await local.state.getDay(day)).toMatchObject({ complete: true });
    return runs;
  };
  const expectArchivedOnce = async () =>
    expectIdsExact(
      createFileObjectStore(join(dir, 'archive')),
      new Set(emulator.truth(day).map((r) => recordId(r, TEST_TOKEN_KEY))),
    );
  return { dir, day, local, run, finish, expectArchivedOnce };
}

const overlap = (a: Set<string>, b: Set<string>) => [...a].filter((x) => b.has(x));

describe("a resumed walk and its own earlier runs' files", () => {
  it('reads none of them back, and the day ends archived once', async () => {
    const w = await ownFilesWorld();
    const first = await w.run();
    const rest = await w.finish();
    expect(rest.length).toBeGreaterThanOrEqual(2);
    expect(first.added.size).toBeGreaterThan(0);
    // Each cut run's state lists every file the walk committed so far (it is the partition's only writer).
    for (const r of [first, ...rest.slice(0, -1)])
      expect(new Set(r.after?.walk?.files)).toEqual(new Set([...r.before, ...r.added]));
    for (const r of rest) {
      expect(r.before.size).toBeGreaterThan(0);
      expect(overlap(r.read, r.before)).toEqual([]);
    }
    await w.expectArchivedOnce();
  });

  it("reads the files of a run whose state was lost, and archives that run's rows once", async () => {
    const w = await ownFilesWorld();
    const first = await w.run();
    const second = await w.run();
    expect(second.added.size).toBeGreaterThan(0);
    // The second run's state write is lost (as when a run is killed after its commits): the next run
    // resumes where the first left the walk, and meets again the rows the second committed.
    const stored = await w.local.state.getDay(w.day);
    if (!first.after || !stored) throw new Error('no day state');
    await w.local.state.putDay({ ...first.after, version: stored.version });
    const third = await w.run();
    expect([...second.added].every((f) => third.read.has(f))).toBe(true);
    expect(overlap(third.read, first.added)).toEqual([]);
    // What the third run's state lists: the first run's files and its own, not the second's.
    expect(third.after?.complete).toBeFalsy();
    expect(new Set(third.after?.walk?.files)).toEqual(new Set([...first.added, ...third.added]));
    await w.finish();
    await w.expectArchivedOnce();
  });

  it('reads them all when the walk’s earlier ids cannot be read, and archives every row once', async () => {
    const w = await ownFilesWorld();
    const first = await w.run();
    const second = await w.run();
    await rm(join(w.dir, 'archive', '_staging', 'walks'), { recursive: true, force: true });
    const third = await w.run();
    const earlier = new Set([...first.added, ...second.added]);
    expect(earlier.size).toBeGreaterThan(1);
    expect(overlap(third.read, earlier).length).toBe(earlier.size);
    // Its saved ids start again from its own: so do the files its state lists.
    expect(third.after?.complete).toBeFalsy();
    expect(new Set(third.after?.walk?.files)).toEqual(third.added);
    await w.finish();
    await w.expectArchivedOnce();
  });
});
