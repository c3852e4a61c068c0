import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { liveAlerts } from '../../../functions/shared/liveAlerts.ts';
import { memoryFindingEvents } from '../../../lib/analytics/detect/findingEvents.ts';
import { memoryFindingLedger } from '../../../lib/analytics/detect/findingLedger.ts';
import { commitFindings } from '../../../lib/analytics/detect/findingsDataset.ts';
import { DELIVERY_LEASE_MS } from '../../../lib/analytics/detect/incidentLedger.ts';
import { loadRules } from '../../../lib/analytics/detect/loadRules.ts';
import { snapshotActive } from '../../../lib/archive/active/snapshotActive.ts';
import { PartitionCommitter } from '../../../lib/archive/commit/partitionCommitter.ts';
import { createFileObjectStore } from '../../../lib/archive/store/fileObjectStore.ts';
import type { ObjectStore } from '../../../lib/archive/store/objectStore.ts';
import { ManualClock } from '../../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../../lib/foundation/log/logger.ts';
import { readFindings } from '../../../lib/integrity/report/readFindings.ts';
import { MemoryActiveState, MemoryRowSink, session, TOKEN_KEY } from '../../active/activeKit.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';

const rules = await loadRules();
const FIVE_MIN = 300_000;
const OPENED = '2026-03-01T08:02:00.000Z';
/** The deployment's override: a tunnel open 2 hours alerts. */
const overrides = { settings: {}, rules: { long_tunnel: { threshold: 2 } } };

async function findingsFiles(objects: ObjectStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of objects.list('findings/')) keys.push(o.key);
  return keys;
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * The snapshot function's live path as `liveAlertsFor` wires it, on a file archive and memory state:
 * `findings/` through the committer, one ledger, an owner per snapshot. `publish` sees what
 * `findings/` holds at the moment it is called; `failPublish` throws instead of publishing.
 */
async function liveArchive(failPublish: (attempt: number) => boolean) {
  dir = await mkdtemp(join(tmpdir(), 'ta-live-alerts-'));
  const objects = createFileObjectStore(join(dir, 'archive'));
  const state = new MemoryStateStore();
  const active = new MemoryActiveState();
  const sink = new MemoryRowSink();
  const shared = new Map<string, { version: number; data: string }>();
  const published: { entity: string; archived: string[] }[] = [];
  let attempts = 0;
  let snapshots = 0;
  const snapshotAt = async (at: Date) => {
    const owner = `snap-${++snapshots}`;
    const clock = new ManualClock(at.toISOString());
    const live = liveAlerts({
      rules,
      overrides,
      ledger: memoryFindingLedger(owner, shared),
      commitFindings: (findings) =>
        commitFindings(
          new PartitionCommitter({
            objects,
            state,
            clock,
            logger: silentLogger,
            runId: owner,
            fence: 0,
            tmpDir: join(dir ?? tmpdir(), 'tmp'),
          }),
          findings,
        ),
      publish: async (_subject, message) => {
        if (failPublish(++attempts)) throw new Error('stopped between write and publish');
        const held = await readFindings(objects);
        published.push({
          entity: String(JSON.parse(message).entity),
          archived: (held?.latest ?? []).map((f) => f.entity),
        });
      },
      events: memoryFindingEvents(),
      countFindings: () => {},
      logger: silentLogger,
    });
    await snapshotActive(
      {
        api: { listActive: async () => [session('open-1', { creationTimestamp: OPENED })] },
        state: active,
        commitRows: sink.commitRows,
        clock,
        logger: silentLogger,
        tokenKey: TOKEN_KEY,
        afterSnapshot: live,
      },
      { tokenPolicy: 'hash', windowDays: 60, scheduleMs: FIVE_MIN },
    ).catch((e: unknown) => {
      if ((e as Error).message !== 'stopped between write and publish') throw e;
    });
  };
  return { objects, published, snapshotAt };
}

describe('liveAlerts: the snapshot function writes each live finding to findings/, then publishes it', () => {
  it('a live alert is in findings/ (as detect writes it, the rule named) before it is published', async () => {
    const { objects, published, snapshotAt } = await liveArchive(() => false);
    const past = Date.parse(OPENED) + 2 * 3_600_000 + 60_000;
    for (let i = 0; i < 3; i++) await snapshotAt(new Date(past + i * FIVE_MIN));
    expect(published).toEqual([{ entity: 'open-1', archived: ['open-1'] }]);
    const held = await readFindings(objects);
    expect(held?.latest.map((f) => [f.rule, f.entity])).toEqual([['long_tunnel', 'open-1']]);
    // The later snapshots see the delivered incident and leave its revisions to detect: one file.
    expect(await findingsFiles(objects)).toHaveLength(1);
  });

  it('a crash between write and publish: written once, published once by a later snapshot', async () => {
    const { objects, published, snapshotAt } = await liveArchive((attempt) => attempt === 1);
    const past = Date.parse(OPENED) + 2 * 3_600_000 + 60_000;
    await snapshotAt(new Date(past));
    // Written, not published: the archive holds it, the outbox keeps it.
    expect(published).toEqual([]);
    expect((await readFindings(objects))?.latest.map((f) => f.entity)).toEqual(['open-1']);
    // Snapshots every 5 minutes until well past the crashed snapshot's lease, then more.
    const after = Math.ceil((DELIVERY_LEASE_MS + 3 * FIVE_MIN) / FIVE_MIN);
    for (let i = 1; i <= after; i++) await snapshotAt(new Date(past + i * FIVE_MIN));
    expect(published).toEqual([{ entity: 'open-1', archived: ['open-1'] }]);
    const held = await readFindings(objects);
    expect(held?.latest).toHaveLength(1);
    // The crashed snapshot's revision, and the one that took its delivery over; nothing after.
    expect(await findingsFiles(objects)).toHaveLength(2);
  });
});
