import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { withCrashPoints } from '../../devkit/withCrashPoints.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import type { UpstreamApi } from '../../lib/archive/upstream/upstreamApi.ts';

const ports = () => ({
  api: { historyPage: async () => ({}) } as unknown as UpstreamApi,
  objects: new MemoryObjectStore(),
  state: { putPartition: async (m: unknown) => m } as unknown as StateStore,
});

describe('withCrashPoints', () => {
  it('kills right after the Nth step of the phase, once the step has applied', async () => {
    let kills = 0;
    const p = withCrashPoints(ports(), 'upload:2', () => kills++);
    await p.objects.put('history/dt=2026-01-01/not-staged.parquet', 'x'); // not an upload step
    await p.objects.put('_staging/r/a.parquet', 'a');
    expect(kills).toBe(0);
    await p.objects.put('_staging/r/b.parquet', 'b');
    expect(kills).toBe(1);
    expect(await p.objects.get('_staging/r/b.parquet')).toBeDefined();
  });

  it('counts only its own phase: digests, publishes, commits and pages are told apart', async () => {
    let kills = 0;
    const p = withCrashPoints(ports(), 'digest:1', () => kills++);
    await p.objects.putIfAbsent('digests/public-key.pem', 'pem');
    await p.state.putPartition({} as never);
    await p.api.historyPage('2026-01-01', '2026-01-01', 0, 10);
    expect(kills).toBe(0);
    await p.objects.putIfAbsent('digests/0000000001.json', '{}');
    expect(kills).toBe(1);
  });
});
