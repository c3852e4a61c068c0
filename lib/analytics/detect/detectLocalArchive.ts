import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendDigest,
  chainHeadAfter,
  chainHeadMatches,
  type DigestSigner,
  type ObjectStore,
  PartitionCommitter,
  pendingDigest,
  type StateStore,
  updateMeta,
} from '../../archive/index.ts';
import { type Clock, type Logger, removeRunFolder } from '../../foundation/index.ts';
import { duckdbRuleEngine } from './duckdbRuleEngine.ts';
import { type EvaluateOptions, type EvaluateResult, evaluateRules } from './evaluateRules.ts';
import type { FindingLedger } from './findingLedger.ts';
import { commitFindings } from './findingsDataset.ts';
import { localCatalog } from './localCatalog.ts';

export interface LocalDetectDeps {
  /** The archive folder (a `file://` destination). */
  dir: string;
  objects: ObjectStore;
  state: StateStore;
  signer: DigestSigner;
  /** Claims per finding id (the local state's table); `new` in the output = claimed by this run. */
  ledger: (owner: string) => FindingLedger;
  clock: Clock;
  logger: Logger;
}

/**
 * `tunnel-archiver detect` without the CLI: the rules over the local archive in DuckDB, findings stored
 * under `findings/dt=…/` through the archive's committer and listed in a new digest (so `verify` checks
 * them), claims in the local state. Findings already claimed by an earlier run are returned but not in
 * `delivered`.
 */
export async function detectLocalArchive(
  deps: LocalDetectDeps,
  opts: EvaluateOptions,
): Promise<EvaluateResult> {
  const runId = `detect-${randomUUID().slice(0, 8)}`;
  const tmpDir = join(tmpdir(), `tunnel-archiver-${runId}`);
  const engine = await duckdbRuleEngine(await localCatalog(deps.dir));
  const committer = new PartitionCommitter({
    objects: deps.objects,
    state: deps.state,
    clock: deps.clock,
    logger: deps.logger,
    runId,
    fence: 0,
    tmpDir,
  });
  try {
    let committed = 0;
    const result = await evaluateRules(
      {
        engine,
        ledger: deps.ledger(runId),
        clock: deps.clock,
        logger: deps.logger,
        commitFindings: async (findings) => {
          committed += (await commitFindings(committer, findings)).files;
        },
      },
      opts,
    );
    if (committed > 0) {
      const { objects, signer, clock, logger, state } = deps;
      // As a run digests: the files noted since the last digest, after the head the state recorded when it
      // matches the archive's (else from the listing); the notes it settles leave META with the head's move,
      // so the next run's digest never lists these findings files a second time.
      const known = await state.getMeta();
      const head =
        known?.chainHead && (await chainHeadMatches(objects, known.chainHead)) ? known.chainHead : undefined;
      const d = await appendDigest(
        { objects, signer, clock, logger, state },
        { runId, scans: [], pending: known?.pendingDigest ?? [], ...(head ? { head } : {}) },
      );
      await updateMeta(state, (fresh) => {
        // The head only moves forward (a run may have written a newer digest meanwhile).
        const chainHead = chainHeadAfter(fresh, d);
        return { ...pendingDigest.without(fresh, new Set(d.settled)), ...(chainHead ? { chainHead } : {}) };
      }).catch((e: unknown) => {
        logger.warn('could not record the new chain head', { error: (e as Error).message });
      });
    }
    return result;
  } finally {
    engine.close();
    await removeRunFolder(tmpDir);
  }
}
