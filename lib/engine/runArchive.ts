import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDays, type Day, dayRange, daysBetween, toDay } from '../clock/day.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import type { ArchiveMeta, DayState, Lease } from '../state/stateStore.ts';
import { PartitionCommitter } from './partitionCommitter.ts';
import { daysAtRisk, type PlannedDay, planDays, windowStartOf } from './planDays.ts';
import { preflight } from './preflight.ts';
import { quarantineRejected } from './quarantineRejected.ts';
import { RecordSpill } from './recordSpill.ts';
import type { ArchiveDeps, ArchiveOptions, DayResult, RunSummary } from './runTypes.ts';
import { walkDay } from './walkDay.ts';

/**
 * One archiving run: plan the due days, walk each completely, append what is new exactly once,
 * and record progress after every day so a killed run loses nothing and a later run resumes.
 * One writer at a time (lease); stops starting new days before `options.deadline`.
 */
export async function runArchive(deps: ArchiveDeps, options: ArchiveOptions): Promise<RunSummary> {
  const { api, state, clock, logger } = deps;
  const runId = deps.runId ?? randomUUID().slice(0, 8);
  const started = clock.now();
  const today = toDay(started);
  const windowStart = windowStartOf(today, options.windowDays);
  for (const d of options.onlyDays ?? []) {
    if (d < windowStart || d > today) {
      throw new ArchiverError(
        'OUTSIDE_WINDOW',
        `Backfill day ${d} is outside the ${options.windowDays}-day window ${windowStart}..${today}`,
      );
    }
  }
  await preflight(api, today, deadlineSignal(deps, options));

  const lease = await state.acquireLease(runId, started, options.leaseTtlMs);
  if (!lease) {
    throw new ArchiverError(
      'LEASE_HELD',
      'Another archiver run holds the lease; this run did nothing and exits. It resumes on the next schedule.',
    );
  }
  const tmpDir = options.tmpDir ?? join(tmpdir(), `tunnel-archiver-${runId}`);
  let held: Lease = lease;
  try {
    const meta =
      (await state.getMeta()) ??
      (await state.putMeta({ firstRunAt: started.toISOString(), firstWindowStart: windowStart, version: 0 }));
    const days = new Map((await state.listDays()).map((d) => [d.day, d] as const));
    const plan = planDays({
      today,
      windowDays: options.windowDays,
      rescanAges: options.rescanAges,
      finalSweepAge: options.finalSweepAge,
      days,
      firstWindowStart: meta.firstWindowStart,
    });
    for (const day of plan.newGaps) {
      const s = await state.putDay({ ...(days.get(day) ?? blankDay(day)), gap: true });
      days.set(day, s);
      logger.error('day left the window before it was sealed: late records may be lost', {
        day,
        code: 'GAP',
      });
    }
    const due: PlannedDay[] = options.onlyDays
      ? [...new Set(options.onlyDays)]
          .sort()
          .map((day) => ({ day, age: daysBetween(day, today), reason: 'requested' as const }))
      : plan.due;

    const committer = new PartitionCommitter({
      ...deps,
      runId,
      fence: lease.fence,
      tmpDir,
      rowGroupSize: options.rowGroupSize,
      tokenPolicy: options.tokenPolicy,
    });
    for (const dt of dayRange(addDays(windowStart, -1), addDays(today, 1))) {
      const m = await state.getPartition(dt);
      if (m?.files.some((f) => !f.published)) await committer.publishPending(m);
    }

    const results: DayResult[] = [];
    let stoppedByDeadline = false;
    for (const planned of due) {
      if (
        options.deadline &&
        clock.now().getTime() + options.deadlineReserveMs >= options.deadline.getTime()
      ) {
        stoppedByDeadline = true;
        break;
      }
      let result: DayResult;
      try {
        result = await archiveDay(planned, committer, days, deps, options, tmpDir);
      } catch (error) {
        if (ArchiverError.is(error, 'DEADLINE')) {
          stoppedByDeadline = true;
          break;
        }
        throw error;
      }
      results.push(result);
      held = await state.renewLease(held, clock.now(), options.leaseTtlMs);
      deps.onProgress?.({
        done: results.length,
        total: due.length,
        day: planned.day,
        newRecords: result.newRecords,
      });
      logger.debug('day archived', { ...result });
    }

    const finished = clock.now();
    await putMetaSafely(deps, meta, finished, !stoppedByDeadline);
    const summary: RunSummary = {
      runId,
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
      today,
      daysPlanned: due.length,
      daysScanned: results.length,
      daysDeferred: due.length - results.length,
      recordsNew: sum(results, (r) => r.newRecords),
      recordsSeen: sum(results, (r) => r.distinctSeen),
      quarantined: sum(results, (r) => r.quarantined),
      files: sum(results, (r) => r.files),
      bytes: sum(results, (r) => r.bytes),
      shortfalls: results.filter((r) => r.shortfall > 0).map((r) => ({ day: r.day, shortfall: r.shortfall })),
      gaps: plan.newGaps,
      atRisk: daysAtRisk(today, options.windowDays, options.finalSweepAge, days),
      stoppedByDeadline,
      days: results,
    };
    logger.info('run finished', { ...summary, days: undefined });
    return summary;
  } finally {
    await state
      .releaseLease(held)
      .catch((e: unknown) => logger.warn('could not release the lease', { error: String(e) }));
    await rm(tmpDir, { recursive: true, force: true });
  }
}

async function archiveDay(
  planned: PlannedDay,
  committer: PartitionCommitter,
  days: Map<Day, DayState>,
  deps: ArchiveDeps,
  options: ArchiveOptions,
  tmpDir: string,
): Promise<DayResult> {
  const { api, state, objects, clock } = deps;
  const signal = deadlineSignal(deps, options);
  const spill = new RecordSpill(join(tmpDir, `walk-${planned.day}.jsonl`));
  let newRecords = 0;
  let files = 0;
  let bytes = 0;
  let walk: Awaited<ReturnType<typeof walkDay>>;
  try {
    walk = await walkDay(api, planned.day, {
      pageSize: options.pageSize,
      concurrency: options.pageConcurrency,
      maxPasses: options.maxPasses,
      spill,
      ...(signal ? { signal } : {}),
    });
    const byPartition = new Map<Day, Set<string>>();
    for (const [id, dt] of walk.records) {
      const ids = byPartition.get(dt) ?? new Set<string>();
      ids.add(id);
      byPartition.set(dt, ids);
    }
    for (const [dt, ids] of [...byPartition].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const c = await committer.commit(dt, ids, spill);
      newRecords += c.newRecords;
      files += c.files;
      bytes += c.bytes;
    }
  } finally {
    await spill.remove();
  }
  const now = clock.now();
  const newlyQuarantined = await quarantineRejected(objects, planned.day, walk.rejected, now);
  const previous = days.get(planned.day) ?? (await state.getDay(planned.day)) ?? blankDay(planned.day);
  const sealed = previous.sealed || (planned.age >= options.finalSweepAge && walk.shortfall === 0);
  const next: DayState = {
    ...previous,
    scannedAges: [...new Set([...previous.scannedAges, planned.age])].sort((a, b) => a - b),
    firstScannedAt: previous.firstScannedAt ?? now.toISOString(),
    lastScannedAt: now.toISOString(),
    totalElements: walk.totalElements,
    distinctSeen: walk.records.size,
    shortfall: walk.shortfall,
    quarantined: walk.rejected.size,
    sealed,
    ...(sealed && !previous.sealed ? { sealedAt: now.toISOString() } : {}),
  };
  days.set(planned.day, await putDayMerging(deps, next));
  if (walk.shortfall > 0) {
    deps.logger.warn('day walk fell short of totalElements', {
      day: planned.day,
      shortfall: walk.shortfall,
      passes: walk.passes,
    });
  }
  return {
    day: planned.day,
    reason: planned.reason,
    totalElements: walk.totalElements,
    distinctSeen: walk.records.size,
    newRecords,
    quarantined: newlyQuarantined,
    shortfall: walk.shortfall,
    passes: walk.passes,
    pages: walk.pages,
    files,
    bytes,
    sealed,
  };
}

/** Day states are written by one lease holder; on a rare conflict, the newer scan wins. */
async function putDayMerging(deps: ArchiveDeps, next: DayState): Promise<DayState> {
  try {
    return await deps.state.putDay(next);
  } catch (error) {
    if (!ArchiverError.is(error, 'CONFLICT')) throw error;
    const stored = await deps.state.getDay(next.day);
    const merged: DayState = {
      ...next,
      scannedAges: [...new Set([...(stored?.scannedAges ?? []), ...next.scannedAges])].sort((a, b) => a - b),
      sealed: next.sealed || (stored?.sealed ?? false),
      version: stored?.version ?? 0,
    };
    return deps.state.putDay(merged);
  }
}

async function putMetaSafely(
  deps: ArchiveDeps,
  meta: ArchiveMeta,
  at: Date,
  success: boolean,
): Promise<void> {
  const fresh = (await deps.state.getMeta()) ?? meta;
  await deps.state
    .putMeta({
      ...fresh,
      lastRunAt: at.toISOString(),
      ...(success ? { lastSuccessAt: at.toISOString() } : {}),
    })
    .catch((e: unknown) => deps.logger.warn('could not record the run in META', { error: String(e) }));
}

function deadlineSignal(deps: ArchiveDeps, options: ArchiveOptions): AbortSignal | undefined {
  if (!options.deadline) return undefined;
  const ms = options.deadline.getTime() - deps.clock.now().getTime() - options.deadlineReserveMs / 2;
  return AbortSignal.timeout(Math.max(1, ms));
}

export function blankDay(day: Day): DayState {
  return { day, scannedAges: [], sealed: false, version: 0 };
}

function sum<T>(xs: T[], f: (x: T) => number): number {
  return xs.reduce((a, x) => a + f(x), 0);
}
