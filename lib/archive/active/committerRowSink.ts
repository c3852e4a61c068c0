import type { Day } from '../../foundation/index.ts';
import type { CommitResult, PartitionCommitter } from '../commit/partitionCommitter.ts';
import type { ActiveRow } from './activeRow.ts';
import { activeWriter } from './activeWriter.ts';

/**
 * `commitRows` for `snapshotActive` through the engine's committer: the same exactly-once protocol as
 * history (staged file, conditional manifest write settled by re-reading, publish that never overwrites),
 * so active files are listed in the manifests and in the digests like history's.
 */
export function committerRowSink(committer: PartitionCommitter) {
  return (dt: Day, rows: readonly ActiveRow[], batch?: string): Promise<CommitResult> =>
    batch === undefined
      ? committer.commit(activeWriter, dt, new Set(rows.map((r) => r.row_id)), async function* () {
          for (const r of rows) yield [r.row_id, r] as const;
        })
      : // A named batch is skipped when listed: no file of the day is read to deduplicate.
        committer.commitBatch(activeWriter, dt, batch, rows);
}
