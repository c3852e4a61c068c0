import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countingObjectStore } from '../../../devkit/countingObjectStore.ts';
import { createSnapshotHandler } from '../../../functions/snapshot-active/snapshotHandler.ts';
import { readActiveRows } from '../../../lib/archive/active/activeParquet.ts';
import { committerRowSink } from '../../../lib/archive/active/committerRowSink.ts';
import { PartitionCommitter } from '../../../lib/archive/commit/partitionCommitter.ts';
import { loadConfig } from '../../../lib/archive/config/loadConfig.ts';
import type { ActiveSession } from '../../../lib/archive/records/schemas.ts';
import { createFileObjectStore } from '../../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../../lib/foundation/log/logger.ts';
import { session } from '../../active/activeKit.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';

const DAY = '2026-03-10';
const FIVE_MIN = 300_000;
const KEY = new Uint8Array(32).fill(1);

/** 40 sessions: each changes its port now and then, and some end and come back, on a fixed pattern. */
function listAt(k: number): ActiveSession[] {
  const out: ActiveSession[] = [];
  for (let i = 0; i < 40; i++) {
    if ((k + 3 * i) % 37 < 4) continue; // ended for a while
    out.push(session(`s${i}`, { port: 10_000 + Math.floor((k + i) / (5 + (i % 11))) }));
  }
  return out;
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a day of snapshots through the snapshot handler', () => {
  it('288 snapshots leave at most 25 files under active/, every row once, with flat store requests', async () => {
    dir = await mkdtemp(join(tmpdir(), 'snapday-'));
    const counting = countingObjectStore(createFileObjectStore(join(dir, 'archive')));
    const state = new MemoryStateStore();
    await state.putMeta({ firstRunAt: `${DAY}T00:00:00.000Z`, firstWindowStart: DAY, version: 0 });
    const clock = new ManualClock(`${DAY}T00:00:30.000Z`);
    let k = 0;
    const handler = createSnapshotHandler({
      config: loadConfig({
        env: { ARCHIVE_DEST: 's3://archive-bucket/', ARCHIVE_STATE: 'dynamodb://state' },
      }),
      settings: { scheduleMs: FIVE_MIN, commitEveryMs: 3_600_000 },
      state,
      commitRows: (dt, rows, batch) =>
        committerRowSink(
          new PartitionCommitter({
            objects: counting.objects,
            state,
            clock,
            logger: silentLogger,
            runId: `snap${k}`,
            fence: 0,
            tmpDir: join(dir as string, 'tmp'),
          }),
        )(dt, rows, batch),
      clock,
      logger: silentLogger,
      metrics: { addMetric: () => {}, publishStoredMetrics: () => {} },
      getApiKey: async () => 'k',
      getTokenKey: async () => KEY,
      createApi: () => ({ listActive: async () => listAt(k), close: async () => {} }),
    });

    let rows = 0;
    const requests: number[] = [];
    for (k = 0; k < 288; k++) {
      counting.reset();
      const r = await handler({});
      rows += r.events.seen + r.events.changed + r.events.gone;
      requests.push(counting.counts.requests);
      clock.advance(FIVE_MIN);
    }
    // The next day's first snapshot commits the rows the last hour of the day held.
    await handler({});

    const keys: string[] = [];
    for await (const o of counting.objects.list('active/')) keys.push(o.key);
    expect(keys.length).toBeGreaterThan(20);
    expect(keys.length).toBeLessThanOrEqual(25);
    expect(keys.every((key) => key.startsWith(`active/dt=${DAY}/`))).toBe(true);
    const ids: string[] = [];
    for (const key of keys) {
      for (const row of await readActiveRows((await counting.objects.get(key)) as Uint8Array))
        ids.push(row.row_id);
    }
    expect(rows).toBeGreaterThan(288);
    expect(ids.length).toBe(rows);
    expect(new Set(ids).size).toBe(rows);
    // Snapshots that commit nothing touch no object at all; those that commit cost the same at the end of
    // the day as at its start (no file of the day is read back to deduplicate).
    const committing = requests.filter((n) => n > 0);
    expect(committing.length).toBe(keys.length - 1);
    expect(Math.max(...committing.slice(-6))).toBeLessThanOrEqual(Math.min(...committing.slice(0, 6)));
    expect((await state.getActiveState())?.pending?.dt).toBe('2026-03-11');
  });
});
