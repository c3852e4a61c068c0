import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { repairPartition } from '../../lib/archive/commit/repairPartition.ts';
import type { ManifestFile } from '../../lib/archive/state/partitionManifest.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

const DT = '2026-11-20';
const file = (name: string, published: boolean, rows = 5): ManifestFile => ({
  name,
  stagingKey: `_staging/r1/dt=${DT}/${name}`,
  rows,
  bytes: 10,
  runId: 'r1',
  fence: 1,
  committedAt: '2026-11-20T06:00:00.000Z',
  published,
});

async function broken() {
  const state = new MemoryStateStore();
  const objects = new MemoryObjectStore();
  // Listed: one published and present, one staged and present, one in neither place (the break).
  await objects.put(`history/dt=${DT}/here.parquet`, 'x');
  await objects.put(`_staging/r1/dt=${DT}/staged.parquet`, 'y');
  await state.putPartition({
    dt: DT,
    files: [file('here.parquet', true), file('staged.parquet', false), file('gone.parquet', true, 7)],
    version: 0,
  });
  return { state, objects, deps: { state, objects, logger: silentLogger } };
}

describe('repairPartition', () => {
  it('a dry run reports the files in neither place and changes nothing', async () => {
    const { state, deps } = await broken();
    const r = await repairPartition(deps, DT, { apply: false });
    expect(r.dropped.map((f) => f.name)).toEqual(['gone.parquet']);
    expect(r.rowsLost).toBe(7);
    expect((await state.getPartition(DT))?.files).toHaveLength(3);
  });

  it('applied, drops only those files, keeps the present ones, and is idempotent', async () => {
    const { state, deps } = await broken();
    await repairPartition(deps, DT, { apply: true });
    expect((await state.getPartition(DT))?.files.map((f) => f.name)).toEqual([
      'here.parquet',
      'staged.parquet',
    ]);
    const again = await repairPartition(deps, DT, { apply: true });
    expect(again.dropped).toEqual([]);
  });

  it('a partition with no manifest has nothing to repair', async () => {
    const { deps } = await broken();
    expect(await repairPartition(deps, '2026-11-21', { apply: true })).toEqual({
      dt: '2026-11-21',
      dataset: 'history',
      dropped: [],
      rowsLost: 0,
    });
  });
});
