import { join } from 'node:path';
import type { DigestSigner } from '../../lib/digest/digestSigner.ts';
import { runArchive } from '../../lib/run/runArchive.ts';
import type { RunSummary } from '../../lib/run/runTypes.ts';
import { TEST_OPTIONS, type World } from '../support/engineKit.ts';

/** One archiving run signed by `signer` (the engine appends its digest at the end of every run). */
export async function runAndDigest(world: World, signer: DigestSigner): Promise<RunSummary> {
  const summary = await runArchive({ ...world.deps(), signer }, optionsFor(world));
  if (!summary.digest) throw new Error('the run wrote no digest');
  return summary;
}

/**
 * The engine's test options with the run's scratch folder inside the world's own temp folder. These tests
 * count `history/` files and rows, so the active-list snapshot (its own files under `active/`) is off.
 */
export function optionsFor(world: World): typeof TEST_OPTIONS {
  return { ...TEST_OPTIONS, snapshotActive: false, tmpDir: join(world.dir, 'run-tmp') };
}
