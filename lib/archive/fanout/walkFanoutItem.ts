import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import {
  ArchiverError,
  IdSet,
  makeRunTmpDir,
  removeRunFolder,
  unboundedBudget,
} from '../../foundation/index.ts';
import { PartitionCommitter } from '../commit/partitionCommitter.ts';
import { historyWriter } from '../parquet/historyWriter.ts';
import type { DraftRow } from '../records/archiveRow.ts';
import { type KeyedRecord, keyRecord } from '../records/keyedRecord.ts';
import { runStages } from '../run/runStages.ts';
import type { ArchiveDeps, ArchiveOptions } from '../run/runTypes.ts';
import type { Lease } from '../state/lease.ts';
import { mapJobObjects } from '../store/mapJobObjects.ts';
import { loadWalkIds } from '../walk/carriedRows.ts';
import { gzipIdLines } from '../walk/idLines.ts';
import type { WalkSink } from '../walk/walkDay.ts';
import { walkRange } from '../walk/walkRange.ts';
import { type FanoutWalkInput, fanoutKeys, type ItemOutcome, type RangeItem } from './fanoutTypes.ts';

/**
 * One map item of the fan-out, in a worker under the orchestration's lease: a whole day walked exactly as a
 * run walks it (`archiveDueDays` with that one day: committed, recorded, a failure kept in the day's state),
 * or a range of a giant day's pages, committed partition by partition (exactly once holds as for any
 * writer: every manifest write is conditional, and rows another worker committed meanwhile are skipped),
 * its ids and findings stored for the finish step. The outcome is stored too (a Distributed Map writes its
 * results to S3, where the finish step would not look), and returned. A worker whose orchestration lost
 * the lease refuses to start.
 */
export async function walkFanoutItem(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  input: FanoutWalkInput,
): Promise<ItemOutcome> {
  const { item } = input;
  const { state, clock } = deps;
  const leaseTtlMs = Math.max(1, input.lease.expiresAt - clock.now().getTime());
  // A straggler of a finished orchestration must not renew (and so revive) the lease it released.
  if (await deps.objects.head(fanoutKeys.finished(input.orchestrationId))) {
    throw new ArchiverError('LEASE_HELD', `orchestration ${input.orchestrationId} has finished`);
  }
  // Renewing checks that the orchestration still holds the lease (LEASE_HELD otherwise).
  let held: Lease = await state.renewLease(input.lease, clock.now(), leaseTtlMs);
  const runId = randomUUID().slice(0, 8);
  const tmpDir = (await makeRunTmpDir(options.tmpDir ?? tmpdir(), runId, deps.incarnationLiveness)).dir;
  try {
    const committer = new PartitionCommitter({ ...deps, runId, fence: held.fence, tmpDir });
    let outcome: ItemOutcome;
    if (item.kind === 'day') {
      const meta = await state.getMeta();
      if (!meta)
        throw new ArchiverError('PLAN_REQUIRED', 'the archive has no META: the plan step did not run');
      const previous = await state.getDay(item.day);
      const due = await runStages.archiveDueDays({
        deps: { ...deps, runId },
        options,
        due: [{ day: item.day, age: item.age, reason: item.reason }],
        days: new Map(previous ? [[item.day, previous]] : []),
        windowDays: input.windowDays,
        committer,
        tmpDir,
        meta,
        budget: options.budget ?? unboundedBudget(clock),
        renewLease: async () => {
          held = await state.renewLease(held, clock.now(), leaseTtlMs);
        },
      });
      const failed = due.failedDays[0];
      // The API's rate limit is the map's to wait out (its Retry backs off), not a day failure to keep.
      if (failed?.code === 'RATE_LIMITED') throw new ArchiverError('RATE_LIMITED', failed.message);
      outcome = {
        id: item.id,
        day: item.day,
        ok: failed === undefined,
        ...(failed ? { code: failed.code, message: failed.message } : {}),
        due: {
          results: due.results,
          failedDays: due.failedDays,
          deferredDays: due.deferredDays,
          gaps: due.gaps,
        },
      };
    } else {
      outcome = {
        id: item.id,
        day: item.day,
        ok: true,
        range: await archiveRange(deps, options, input, item, committer, tmpDir),
      };
    }
    await mapJobObjects.write(deps.objects, fanoutKeys.itemOutcome(input.orchestrationId, item.id), outcome);
    return outcome;
  } finally {
    await removeRunFolder(tmpDir);
  }
}

/** A range of a giant day's pass: walked, committed, its rows' ids kept for the union the finish step makes. */
async function archiveRange(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  input: FanoutWalkInput,
  item: RangeItem,
  committer: PartitionCommitter,
  tmpDir: string,
) {
  const archivedAt = deps.clock.now();
  const drafts = new runStages.PartitionDrafts<DraftRow>(
    committer,
    historyWriter(options.rowGroupSize, options.parquetEncoder),
    { tmpDir, prefix: `range-${item.id}` },
  );
  try {
    // Later passes start from the ids earlier passes took (kept by the finish step), as a resumed walk does.
    const carried = item.pass > 1 ? await loadWalkIds(deps.objects, item.day) : undefined;
    const sink = new RangeRows(drafts, carried);
    const walked = await walkRange(deps.api, item.day, {
      from: item.from,
      to: item.to,
      size: item.size,
      last: item.last,
      concurrency: options.pageConcurrency,
      maxPagesPerDay: options.maxPagesPerDay,
      sink,
      tokenKey: deps.tokenKey,
      keyRecord: (record) =>
        keyRecord(record, { tokenPolicy: options.tokenPolicy, tokenKey: deps.tokenKey, archivedAt }),
      ...optionalSignal(options.budget?.signal()),
    });
    const { newRecords, files, bytes } = await drafts.commitAll();
    const quarantined = await runStages.quarantineRejected(
      deps.objects,
      item.day,
      walked.rejected,
      deps.clock.now(),
      {
        tokenPolicy: options.tokenPolicy,
        tokenKey: deps.tokenKey,
      },
    );
    // A quarantined item is a record the server holds too: its id joins the union the finish step judges,
    // as the day walk counts it among the records it collected.
    for (const id of walked.rejected.keys()) sink.ids.add(id);
    const idsKey = fanoutKeys.rangeIds(input.orchestrationId, item.id);
    await deps.objects.put(idsKey, await gzipIdLines(sink.ids));
    return {
      id: item.id,
      day: item.day,
      pass: item.pass,
      from: item.from,
      pages: walked.pages,
      ...(walked.short ? { short: walked.short } : {}),
      totals: walked.totals,
      idsKey,
      distinct: sink.ids.size,
      quarantined,
      newRecords,
      files,
      bytes,
    };
  } finally {
    await drafts.discard();
  }
}

const optionalSignal = (signal: AbortSignal | undefined) => (signal ? { signal } : {});

/**
 * A range's sink: rows whose ids an earlier pass took are skipped (they are archived); the others are
 * kept once each, and their ids remembered for the union.
 */
class RangeRows implements WalkSink {
  readonly ids = new IdSet();
  readonly #inner: WalkSink;
  readonly #carried: IdSet | undefined;

  constructor(inner: WalkSink, carried: IdSet | undefined) {
    this.#inner = inner;
    this.#carried = carried;
  }

  add(record: KeyedRecord): undefined | Promise<void> {
    if (this.#carried?.has(record.id)) return undefined;
    return this.ids.add(record.id) ? this.#inner.add(record) : undefined;
  }

  get distinct(): number {
    return this.ids.size;
  }
}
