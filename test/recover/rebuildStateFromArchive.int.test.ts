import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import { loadLocalKeys, localKeysDir } from '../../lib/archive/keys/loadLocalKeys.ts';
import { rebuildStateFromArchive } from '../../lib/archive/recover/rebuildStateFromArchive.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import { createDynamoStateStore, ensureStateTable } from '../../lib/archive/state/dynamoStateStore.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { optionsFor, runAndDigest } from '../digest/proofKit.ts';
import {
  archivedIds,
  diffArchive,
  truthIds,
  type World,
  windowDays,
  worldPerTest,
} from '../support/engineKit.ts';

const worlds = worldPerTest();

/** A brand-new, empty state table on the same server: the state was lost. */
async function freshState(w: World, name: string): Promise<StateStore> {
  await ensureStateTable(w.dynamo.client, name);
  return createDynamoStateStore({ client: w.dynamo.client, table: name });
}

describe('rebuildStateFromArchive', () => {
  it('after the state is lost, rebuilds the manifests so the next run archives nothing twice', async () => {
    const world = await worlds.open();
    const w = world;
    const signer: DigestSigner = (await loadLocalKeys(localKeysDir(`${w.dir}/archive`))).signer;
    await runAndDigest(w, signer);
    w.clock.advance(2 * 86_400_000);
    await runAndDigest(w, signer);
    w.clock.advance(86_400_000);
    await runAndDigest(w, signer);
    const before = await archivedIds(w.objects);
    expect(before.total).toBe(before.distinct);

    const state = await freshState(w, 'lost-state');
    const rebuilt = await rebuildStateFromArchive({ objects: w.objects, state, logger: silentLogger });
    expect(rebuilt.rows).toBe(before.total);
    expect(rebuilt.partitions.length).toBe(before.byDt.size);
    expect(rebuilt.undigested).toBe(0);
    const manifest = await state.getPartition(rebuilt.partitions[0]?.dt as string);
    expect(manifest?.files.every((f) => f.published && f.rows > 0 && f.bytes > 0)).toBe(true);
    // Idempotent: a second rebuild finds nothing lacking.
    expect((await rebuildStateFromArchive({ objects: w.objects, state, logger: silentLogger })).files).toBe(
      0,
    );

    w.clock.advance(3_600_000);
    const again = await runArchive({ ...w.deps(), state, signer }, optionsFor(w));
    expect(again.daysScanned).toBe(60); // the day states are gone: every day is walked again ...
    const after = await archivedIds(w.objects);
    expect(after.total).toBe(after.distinct); // ... yet nothing is archived twice
    const truth = truthIds(w, windowDays(toDay(w.clock.now())));
    expect(diffArchive(after.byDt, truth)).toEqual([]);
    expect(again.recordsNew).toBe(after.total - before.total);
  });

  it('is what the run does first on a lost state: it reports every file it put back', async () => {
    const world = await worlds.open();
    const w = world;
    const first = await runArchive(w.deps(), optionsFor(w));
    const state = await freshState(w, 'lost-reported');
    const again = await runArchive({ ...w.deps(), state }, optionsFor(w));
    expect(again.rebuilt).toMatchObject({ files: first.files });
    expect(again.recordsNew).toBe(0);
  });

  it('also rebuilds files published by a run that died before writing its digest', async () => {
    const world = await worlds.open();
    const w = world;
    await runArchive(w.deps(), optionsFor(w));
    // As if the run died before writing its digest: the chain holds no digest of it.
    for (const f of await readdir(join(w.dir, 'archive', 'digests'))) {
      if (/^\d{10}\.json$/.test(f)) await rm(join(w.dir, 'archive', 'digests', f));
    }
    const state = await freshState(w, 'no-digest');
    const rebuilt = await rebuildStateFromArchive({ objects: w.objects, state, logger: silentLogger });
    const archive = await archivedIds(w.objects);
    expect(rebuilt.rows).toBe(archive.total);
    expect(rebuilt.undigested).toBe(rebuilt.files);
    const verified = await verifyArchive({ objects: w.objects, clock: w.clock }, { windowDays: 60 });
    expect(verified.failures.every((f) => f.kind === 'unlisted' || f.kind === 'chain')).toBe(true);
    expect(verified.failures.filter((f) => f.kind === 'unlisted')).toHaveLength(rebuilt.files);
  });
});
