import { join } from 'node:path';
import { appendDigest } from '../../lib/digest/appendDigest.ts';
import type { DigestScan } from '../../lib/digest/digestSchema.ts';
import type { DigestSigner } from '../../lib/digest/digestSigner.ts';
import { runArchive } from '../../lib/engine/runArchive.ts';
import type { RunSummary } from '../../lib/engine/runTypes.ts';
import { TEST_OPTIONS, type World } from '../engine/engineKit.ts';

/** The scans of a run as a digest records them (what the engine will pass once it calls appendDigest). */
export function scansOf(summary: RunSummary): DigestScan[] {
  return summary.days.map((d) => ({
    day: d.day,
    scannedAt: summary.finishedAt,
    complete: d.shortfall === 0,
  }));
}

/** One archiving run with the current engine, followed by the digest the engine will append. */
export async function runAndDigest(world: World, signer: DigestSigner): Promise<RunSummary> {
  const summary = await runArchive(world.deps(), optionsFor(world));
  await appendDigest(
    { objects: world.objects, signer, clock: world.clock, logger: world.deps().logger },
    { runId: summary.runId, scans: scansOf(summary) },
  );
  return summary;
}

/** The engine's test options with the run's scratch folder inside the world's own temp folder. */
export function optionsFor(world: World): typeof TEST_OPTIONS {
  return { ...TEST_OPTIONS, tmpDir: join(world.dir, 'run-tmp') };
}
