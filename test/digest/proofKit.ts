import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import { loadLocalKeys, localKeysDir } from '../../lib/archive/keys/loadLocalKeys.ts';
import { runArchive } from '../../lib/archive/run/runArchive.ts';
import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import { SMALL_DATASET, startWorld, TEST_OPTIONS, type World } from '../support/engineKit.ts';

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

/** A world whose local archive holds signed runs, for the verify tests to read (and copy to damage). */
export interface SignedArchive {
  world: World;
  signer: DigestSigner;
  /** The archive's folder (its file store). */
  dir: string;
}

/**
 * Archives the small dataset (no late records) in `runs` signed runs: the second 36 hours after the first, so
 * that days are sealed and new days appear; any further run an hour after the one before it.
 */
export async function startSignedArchive(runs = 2): Promise<SignedArchive> {
  const world = await startWorld({ dataset: { ...SMALL_DATASET, lateRate: 0 } });
  const dir = join(world.dir, 'archive');
  const signer = (await loadLocalKeys(localKeysDir(dir))).signer;
  for (let n = 0; n < runs; n++) {
    if (n > 0) world.clock.advance((n === 1 ? 36 : 1) * 3_600_000);
    await runAndDigest(world, signer);
  }
  return { world, signer, dir };
}

/** The archive's `history/` file keys, in key order. */
export async function historyKeys(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const part of (await readdir(join(dir, 'history'))).sort())
    for (const f of (await readdir(join(dir, 'history', part))).sort()) out.push(`history/${part}/${f}`);
  return out;
}
