import { describe, expect, it } from 'vitest';
import { FaultPlan } from '../../devkit/fakes/faultPlan.ts';
import { putManifestOnce } from '../../lib/archive/commit/putManifestOnce.ts';
import type { ManifestFile, PartitionManifest } from '../../lib/archive/state/partitionManifest.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { MemoryStateStore } from '../support/fakes/memoryStateStore.ts';

const file = (name: string): ManifestFile => ({
  name,
  stagingKey: `_staging/r1/dt=2026-11-20/${name}`,
  rows: 3,
  bytes: 100,
  runId: 'r1',
  fence: 1,
  committedAt: '2026-11-20T06:00:00.000Z',
  published: false,
});

async function stored(state: MemoryStateStore): Promise<PartitionManifest> {
  return state.putPartition({ dt: '2026-11-20', files: [file('a.parquet')], version: 0 });
}

describe('putManifestOnce', () => {
  it('lists the file by a conditional write', async () => {
    const state = new MemoryStateStore();
    const m = await stored(state);
    const out = await putManifestOnce({ state, logger: silentLogger }, m, file('b.parquet'));
    expect(out !== 'moved-on' && out.files.map((f) => f.name)).toEqual(['a.parquet', 'b.parquet']);
  });

  it('a write whose response was lost: the re-read shows it applied, and it is not written twice', async () => {
    const faults = new FaultPlan({
      rules: [{ op: 'putPartition', fault: 'lostResponse', mode: 'unknown', times: 1 }],
    });
    const state = new MemoryStateStore({ faults });
    faults.revive().clearRules();
    const m = await stored(state);
    faults.add({ op: 'putPartition', fault: 'lostResponse', mode: 'unknown', times: 1 });
    const out = await putManifestOnce({ state, logger: silentLogger }, m, file('b.parquet'));
    expect(out !== 'moved-on' && out.files.map((f) => f.name)).toEqual(['a.parquet', 'b.parquet']);
    expect((await state.getPartition('2026-11-20'))?.files).toHaveLength(2);
  });

  it("the manifest moved past the version we read without our file: 'moved-on' (the staged file is certainly unlisted)", async () => {
    const state = new MemoryStateStore();
    const m = await stored(state);
    await state.putPartition({ ...m, files: [...m.files, file('other.parquet')] });
    expect(await putManifestOnce({ state, logger: silentLogger }, m, file('b.parquet'))).toBe('moved-on');
  });

  it('a write that keeps failing with the version unchanged is given up, thrown, after a bounded number of tries', async () => {
    const faults = FaultPlan.none();
    const state = new MemoryStateStore({ faults });
    const m = await stored(state);
    faults.add({ op: 'putPartition', fault: 'fail', mode: 'retry' });
    await expect(
      putManifestOnce({ state, logger: silentLogger }, m, file('b.parquet')),
    ).rejects.toMatchObject({
      code: 'STORE_FAILED',
      message: expect.stringMatching(/injected failure of state\.putPartition/),
    });
    expect(faults.count('state', 'putPartition')).toBeLessThanOrEqual(1 + 4);
    expect((await state.getPartition('2026-11-20'))?.files).toHaveLength(1);
  });
});
