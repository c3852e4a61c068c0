import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countingObjectStore } from '../../devkit/countingObjectStore.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';
import { walkIdsKey } from '../../lib/archive/walk/carriedRows.ts';
import { countingStateStore } from '../support/countingStateStore.ts';
import { expectIdsExact, TEST_TOKEN_KEY, testDeps } from '../support/engineKit.ts';
import { bigDayWorld } from './bigDayWorld.ts';

const SESSIONS = 12_000;
/** 15 pages a run: (800 − 500) ms ÷ 40 ms × 2 in flight; the day's 121 pages take 9 or more runs. */
const MAX_RUN_MS = 800;
const RESERVE_MS = 500;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** What a run had read from the stores when it sent its first page request of the day. */
interface AtFirstRequest {
  objectBytes: number;
  objectCalls: Record<string, number>;
  stateCalls: Record<string, number>;
}

describe('a resumed run', () => {
  it("reads none of the day's ids before its first page request, on its 3rd run of a day and on its 7th: the earlier ids and the partition's are read beside the fetching", async () => {
    const { clock, emulator, dir, local, day, latency, http, runAt, options } = await bigDayWorld(SESSIONS, {
      faults: { stableOrder: true },
      dirPrefix: 'ta-resumedcost-',
      cleanups,
    });
    const store = countingObjectStore(createFileObjectStore(join(dir, 'archive')));
    const state = countingStateStore(local.state);
    const timed = latency.api(http);
    // What had been read at the run's first page request of the day (one the run sends ahead of its walk,
    // beside its preflight), and at its last (the walk's pages are sent ahead until the walk asks for its own).
    let snapshot: AtFirstRequest | undefined;
    let atLast: AtFirstRequest | undefined;
    const api: UpstreamApi = {
      listActive: (o) => timed.listActive(o),
      historyPage: (from, to, page, size, o) => {
        if (from === day && size !== 1) {
          const now = {
            objectBytes: store.counts.bytesRead,
            objectCalls: { ...store.counts.byMethod },
            stateCalls: { ...state.counts.byMethod },
          };
          snapshot ??= now;
          atLast = now;
        }
        return timed.historyPage(from, to, page, size, o);
      },
    };
    const runs: {
      at: AtFirstRequest | undefined;
      atLast: AtFirstRequest | undefined;
      staged: number;
      idsBytes: number;
    }[] = [];
    for (let n = 0; n < 14 && !(await local.state.getDay(day))?.complete; n++) {
      runAt(n);
      store.reset();
      state.reset();
      snapshot = undefined;
      atLast = undefined;
      const summary = await runArchive(
        testDeps({ api, objects: store.objects, state: state.state, clock }),
        options(MAX_RUN_MS, RESERVE_MS),
      );
      const d = summary.days.find((x) => x.day === day);
      // The walk's ids saved so far: part 0 and the parts the day state records after it.
      let idsBytes = 0;
      for (let part = 0; part <= ((await local.state.getDay(day))?.walk?.idParts ?? 0); part++)
        idsBytes += (await store.objects.head(walkIdsKey(day, part)))?.size ?? 0;
      runs.push({ at: snapshot, atLast, staged: d?.distinctSeen ?? 0, idsBytes });
    }
    expect(runs.length).toBeGreaterThan(7);
    expect(await local.state.getDay(day)).toMatchObject({ complete: true });
    await expectIdsExact(
      createFileObjectStore(join(dir, 'archive')),
      new Set(emulator.truth(day).map((r) => recordId(r, TEST_TOKEN_KEY))),
    );
    // Runs 6 hours apart: the 3rd and the 7th both run at 18:00, a day apart (what a run reads besides
    // the day also follows the calendar: the first run's digest is shorter, a run past midnight records
    // the day that left the window).
    const [third, seventh] = [runs[2], runs[6]];
    // The 7th run resumes the day with twice the rows staged of the 3rd, and more ids saved...
    expect(seventh?.staged ?? 0).toBeGreaterThan(1.5 * (third?.staged ?? 0));
    expect(seventh?.idsBytes ?? 0).toBeGreaterThan(1.5 * (third?.idsBytes ?? 0));
    // ...yet had read no more when it asked for its first page: neither run had read any of the day's
    // ids by then, only what a run reads whatever the day's size. (The reads sent beside that request race
    // it, so on a busy machine one run may have read one small object more: a bound, not equality.)
    expect(seventh?.at).toBeDefined();
    const fixedReads = 16 * 1024;
    expect(seventh?.idsBytes ?? 0).toBeGreaterThan(2 * fixedReads);
    for (const run of [third, seventh]) expect(run?.at?.objectBytes ?? Infinity).toBeLessThan(fixedReads);
    // Its first pages went out before the day's partition was looked at (beside the preflight)...
    expect(seventh?.at?.stateCalls.getPartition ?? 0).toBe(0);
    // ...and the partition's archived ids were asked for while the day's pages were still being fetched:
    // read beside the fetching, not after it.
    expect(seventh?.atLast?.stateCalls.getPartition ?? 0).toBeGreaterThan(0);
  });
});
