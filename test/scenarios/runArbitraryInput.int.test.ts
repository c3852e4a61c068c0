import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { type DynaliteHandle, startDynalite } from '../../devkit/startDynalite.ts';
import { rawRecordId, recordId } from '../../lib/archive/records/recordId.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { createDynamoStateStore, ensureStateTable } from '../../lib/archive/state/dynamoStateStore.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { addDays, type Day, toDay } from '../../lib/foundation/clock/day.ts';
import { archivedIds, TEST_OPTIONS, TEST_TOKEN_KEY, testDeps } from '../support/engineKit.ts';

let dynamo: DynaliteHandle;
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.close();
});

describe('runArchive on arbitrary JSON', () => {
  it('property: whatever items a page holds, the run succeeds, every valid record is archived once and every other item is quarantined', async () => {
    let runNo = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 12 }),
        fc.array(
          fc.record({
            start_time: fc.oneof(
              fc.string(),
              fc.constant('-000001-06-01T00:00:00Z'),
              fc.constant('2026/11/20 10:00:00'),
            ),
            port: fc.oneof(fc.integer(), fc.constant(3_000_000_000), fc.constant(null)),
          }),
          { maxLength: 5 },
        ),
        async (junk, broken) => {
          const clock = new ManualClock('2026-11-20T06:00:00Z');
          const day: Day = addDays(toDay(clock.now()), -3);
          const good = dayOfRecords(day, 9);
          const mutated = broken.map((b, i) => ({ ...good[i % good.length], ...b }));
          const items: unknown[] = [...good, ...junk, ...mutated];
          const api = new ScriptedUpstream({ clock, days: new Map([[day, items]]), maxPageSize: 4 });
          const dir = await mkdtemp(join(tmpdir(), 'ta-arbitrary-'));
          try {
            const objects = createFileObjectStore(join(dir, 'archive'));
            const table = `arbitrary-${runNo++}`;
            await ensureStateTable(dynamo.client, table);
            const state = createDynamoStateStore({ client: dynamo.client, table });
            const summary = await runArchive(testDeps({ api, objects, state, clock }), {
              ...TEST_OPTIONS,
              onlyDays: [day],
            });
            expect(summary.failedDays).toEqual([]);
            const valid = new Set<string>();
            const invalid = new Set<string>();
            for (const item of items) {
              const parsed = historyRecordSchema.safeParse(item);
              if (parsed.success) valid.add(recordId(parsed.data, TEST_TOKEN_KEY));
              else invalid.add(rawRecordId(item, TEST_TOKEN_KEY));
            }
            const archived = await archivedIds(objects);
            expect(archived.total).toBe(archived.distinct);
            expect(new Set([...archived.byDt.values()].flat())).toEqual(valid);
            const quarantined: string[] = [];
            for await (const o of objects.list('quarantine/')) quarantined.push(o.key);
            expect(quarantined.length).toBe(invalid.size);
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
