import { ArchiverError } from '../../foundation/index.ts';
import { daysAtRisk } from '../days/planDays.ts';
import { appendDigest } from '../digest/appendDigest.ts';
import type { ChainHead } from '../digest/digestState.ts';
import { pendingDigest } from '../digest/pendingDigest.ts';
import type { ArchiveMeta } from '../state/archiveMeta.ts';
import { chainHeadAfter } from '../state/chainHeadAfter.ts';
import { reconciledHeadAfter } from '../state/reconciledHeadAfter.ts';
import { updateMeta } from '../state/updateMeta.ts';
import type { DueDaysOutcome } from './archiveDueDays.ts';
import type { RunFacts, RunPlan } from './prepareRun.ts';
import type { ActiveSummary, ArchiveDeps, ArchiveOptions, DayResult, RunSummary } from './runTypes.ts';
import { summarizeRun } from './summarizeRun.ts';

/**
 * Everything after the days: append the run's digest, record the run (and the chain's head) in META, and
 * sum the run up. Neither write fails the run: what they miss, the next run catches up.
 */
export async function finishRun(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  run: RunFacts & RunPlan & { active: ActiveSummary | undefined },
  outcome: DueDaysOutcome,
): Promise<RunSummary> {
  const { results, failedDays, deferredDays, stoppedByDeadline, meta } = outcome;
  const { started, rebuilt, pending, windowDays } = run;
  const learned = Math.min(windowDays, meta.learnedWindowDays ?? windowDays);
  const digest = await appendDigestSafely(deps, run.runId, results, run.head);
  const finished = deps.clock.now();
  const ok = !stoppedByDeadline && failedDays.length === 0;
  await putMetaSafely(deps, finished, ok, digest, run.reconcile);
  return summarizeRun({
    runId: run.runId,
    started,
    finished,
    today: run.today,
    daysPlanned: run.due.length,
    results,
    failedDays,
    deferredDays,
    gaps: [...run.gaps, ...outcome.gaps],
    stoppedByDeadline,
    atRisk: daysAtRisk(run.today, learned, run.days),
    ...(digest ? { digest } : {}),
    pending,
    ...(learned < options.windowDays ? { learnedWindowDays: learned } : {}),
    ...(run.active ? { active: run.active } : {}),
    rebuilt: { ...rebuilt, partitions: rebuilt.partitions.length },
  });
}

/**
 * Every run, even one that added nothing, appends a digest: the files committed since the previous one
 * (from the notes, after the checked `head`; or, reconciling, from the listing) and the days this run
 * scanned (when, and whether completely). A failure is logged; the next run's digest lists these files,
 * since their notes stay until a digest lists them.
 */
export async function appendDigestSafely(
  deps: ArchiveDeps,
  runId: string,
  results: readonly DayResult[],
  head?: ChainHead,
): Promise<(RunSummary['digest'] & { settled: string[] }) | undefined> {
  try {
    const scans = results
      .filter((r) => !r.interrupted)
      .map((r) => ({ day: r.day, scannedAt: r.scannedAt, complete: r.complete && r.shortfall === 0 }));
    // The notes as they stand now: this run's commits, and any the snapshot function made meanwhile.
    const pending = (await deps.state.getMeta())?.pendingDigest ?? [];
    const d = await appendDigest(deps, { runId, scans, pending, ...(head ? { head } : {}) });
    // The head also leaves in the summary (the Lambda's `run finished` log line and the ChainHeadSeq
    // metric; the CLI's printed summary): records of it that a writer of the bucket cannot rewind.
    deps.logger.debug('digest chain head', { seq: d.seq, sha256: d.sha256, key: d.key });
    return {
      key: d.key,
      files: d.files,
      seq: d.seq,
      sha256: d.sha256,
      createdAt: d.createdAt,
      settled: d.settled,
    };
  } catch (error) {
    deps.logger.error('could not append the digest; the next run lists these files', {
      code: ArchiverError.is(error) ? error.code : 'INTERNAL',
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

export async function putMetaSafely(
  deps: ArchiveDeps,
  at: Date,
  success: boolean,
  digest: Awaited<ReturnType<typeof appendDigestSafely>>,
  reconciled = false,
): Promise<void> {
  try {
    await updateMeta(deps.state, (fresh) => {
      // The head only moves forward: a slower concurrent run never records an older head over a newer one.
      const chainHead = chainHeadAfter(fresh, digest);
      const head = chainHead ? { chainHead } : {};
      const base = digest ? pendingDigest.without(fresh, new Set(digest.settled)) : fresh;
      return {
        ...base,
        lastRunAt: at.toISOString(),
        ...(success ? { lastSuccessAt: at.toISOString() } : {}),
        ...head,
        // A reconciliation counts once its digest is written; the next one works from the chain after it.
        ...(reconciled && digest ? reconciledAfter(fresh, at, digest) : {}),
      };
    });
  } catch (e) {
    deps.logger.warn('could not record the run in META', { error: String(e) });
  }
}

function reconciledAfter(
  meta: ArchiveMeta,
  at: Date,
  digest: NonNullable<Awaited<ReturnType<typeof appendDigestSafely>>>,
): Pick<ArchiveMeta, 'reconciledAt' | 'reconciledHead'> {
  const reconciledHead = reconciledHeadAfter(meta, digest);
  return { reconciledAt: at.toISOString(), ...(reconciledHead ? { reconciledHead } : {}) };
}
