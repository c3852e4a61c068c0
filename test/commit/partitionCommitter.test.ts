import { describe, expect, it } from 'vitest';
import { FaultPlan } from '../../devkit/fakes/faultPlan.ts';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { type DatasetWriter, PartitionCommitter } from '../../lib/archive/commit/partitionCommitter.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { idLines } from './idLines.ts';

const DT = '2026-11-20';
const tmp = tempDirPer('ta-committer-', 'test');

const committer = (objects: MemoryObjectStore, state: MemoryStateStore, runId = 'r1') =>
  new PartitionCommitter({
    objects,
    state,
    clock: new ManualClock('2026-11-22T06:00:00.000Z'),
    logger: silentLogger,
    runId,
    fence: 1,
    tmpDir: tmp.dir,
  });

const rowsOf = (ids: string[]) =>
  async function* () {
    for (const id of ids) yield [id, id] as const;
  };

/** Commits the rows of these ids (each row is its id) to partition DT. */
const commitIds = (c: PartitionCommitter, ids: string[]) => c.commit(idLines, DT, new Set(ids), rowsOf(ids));

async function archived(objects: MemoryObjectStore): Promise<string[]> {
  const ids: string[] = [];
  for await (const o of objects.list(`history/dt=${DT}/`))
    ids.push(...new TextDecoder().decode(await objects.get(o.key)).split('\n'));
  return ids.sort();
}

describe('PartitionCommitter', () => {
  it('stages, lists in the manifest, then publishes; the same rows again add nothing', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const c = committer(objects, state);
    expect(
      await commitIds(c, ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb']),
    ).toMatchObject({
      newRecords: 2,
      files: 1,
    });
    expect(
      await commitIds(c, [
        'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
        'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
        'cccccccccccccccccccccccccccccccc',
      ]),
    ).toMatchObject({
      newRecords: 1,
    });
    expect(
      await commitIds(c, ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'cccccccccccccccccccccccccccccccc']),
    ).toMatchObject({
      newRecords: 0,
      files: 0,
    });
    const manifest = await state.getPartition(DT);
    expect(manifest?.files.map((f) => f.published)).toEqual([true, true]);
    expect(await archived(objects)).toEqual([
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      'cccccccccccccccccccccccccccccccc',
    ]);
    const staged: string[] = [];
    for await (const o of objects.list('_staging/')) staged.push(o.key);
    expect(staged).toEqual([]);
  });

  it('another writer committed some of the rows meanwhile: only the rest is added (ids read back from its files)', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    await commitIds(committer(objects, state, 'other'), ['bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb']);
    const mine = await commitIds(committer(objects, state), [
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    ]);
    expect(mine.newRecords).toBe(1);
    expect(await archived(objects)).toEqual([
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    ]);
  });

  it("reads the ids of a partition's listed files several at a time, each once", async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const ids = Array.from({ length: 6 }, (_, i) => String(i).repeat(32));
    for (const [i, id] of ids.entries()) await commitIds(committer(objects, state, `w${i}`), [id]);
    let reading = 0;
    let mostAtOnce = 0;
    let reads = 0;
    const counted: DatasetWriter<string> = {
      ...idLines,
      async *readIds(source) {
        reads++;
        mostAtOnce = Math.max(mostAtOnce, ++reading);
        // A turn of the event loop, as a real read takes: reads started together overlap here.
        await new Promise((resolve) => setImmediate(resolve));
        yield* idLines.readIds(source);
        reading--;
      },
    };
    const known = await committer(objects, state).archivedIds(counted, DT);
    expect([...known].sort()).toEqual(ids);
    expect(reads).toBe(6);
    expect(mostAtOnce).toBeGreaterThan(1);
  });

  it('eight writers committing one partition at once all land, each row once (a fan-out day of ranges)', async () => {
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore();
    const writers = Array.from({ length: 8 }, (_, w) => ({
      committer: committer(objects, state, `range-${w}`),
      ids: [0, 1, 2].map((i) => `${w}${i}`.padStart(32, 'a')),
    }));
    const results = await Promise.allSettled(writers.map((w) => commitIds(w.committer, w.ids)));
    // Every writer read the same manifest first, so all but one lost the first round: the rounds it takes
    // are the writers' count, and none may be given up.
    expect(results.map((r) => r.status)).toEqual(writers.map(() => 'fulfilled'));
    expect(await archived(objects)).toEqual(writers.flatMap((w) => w.ids).sort());
    expect((await state.getPartition(DT))?.files).toHaveLength(8);
  });

  it('a manifest write whose response was lost is settled by re-reading: listed once, published once', async () => {
    const faults = FaultPlan.none();
    const objects = new MemoryObjectStore();
    const state = new MemoryStateStore({ faults });
    faults.add({ op: 'putPartition', fault: 'lostResponse', mode: 'unknown', times: 1 });
    const r = await commitIds(committer(objects, state), ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']);
    expect(r.newRecords).toBe(1);
    expect(faults.log.some((e) => e.outcome === 'lostResponse')).toBe(true);
    expect((await state.getPartition(DT))?.files).toHaveLength(1);
    expect(await archived(objects)).toEqual(['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']);
  });
});
