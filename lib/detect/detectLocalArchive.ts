import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../clock/clock.ts';
import { PartitionCommitter } from '../commit/partitionCommitter.ts';
import { appendDigest } from '../digest/appendDigest.ts';
import type { DigestSigner } from '../digest/digestSigner.ts';
import type { Logger } from '../log/logger.ts';
import type { StateStore } from '../state/stateStore.ts';
import type { ObjectStore } from '../store/objectStore.ts';
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
  const engine = await duckdbRuleEngine(await localCatalog(deps.dir));
  const committer = new PartitionCommitter({
    objects: deps.objects,
    state: deps.state,
    clock: deps.clock,
    logger: deps.logger,
    runId,
    fence: 0,
    tmpDir: join(tmpdir(), `tunnel-archiver-${runId}`),
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
      const d = await appendDigest({ objects, signer, clock, logger, state }, { runId, scans: [] });
      // The state's record of the chain head moves forward too (what verify compares the chain with).
      const meta = await state.getMeta();
      if (meta && (meta.chainHead?.seq ?? 0) < d.seq) {
        const chainHead = { seq: d.seq, key: d.key, sha256: d.sha256, at: d.createdAt };
        await state.putMeta({ ...meta, chainHead }).catch((e: unknown) => {
          logger.warn('could not record the new chain head', { error: (e as Error).message });
        });
      }
    }
    return result;
  } finally {
    engine.close();
  }
}
