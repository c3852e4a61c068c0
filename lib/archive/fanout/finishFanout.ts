import * as z from 'zod';
import {
  ArchiverError,
  type ArchiverErrorCode,
  type Day,
  ERROR_CODES,
  IdSet,
  mayStillBeOpen,
  toDay,
} from '../../foundation/index.ts';
import { blankDay, failedDayState, nextDayState } from '../days/nextDayState.ts';
import { daysAtRisk } from '../days/planDays.ts';
import { putDayMerging } from '../days/putDayMerging.ts';
import { runStages } from '../run/runStages.ts';
import type { ArchiveDeps, ArchiveOptions, DayResult, FailedDay, RunSummary } from '../run/runTypes.ts';
import type { DayState, WalkProgress } from '../state/dayState.ts';
import { mapJobObjects } from '../store/mapJobObjects.ts';
import { loadWalkIds, saveWalkIds } from '../walk/carriedRows.ts';
import { addIdLines } from '../walk/idLines.ts';
import { passVerdict } from '../walk/passVerdict.ts';
import {
  type FanoutItem,
  type FanoutPlanOutput,
  fanoutItemSchema,
  fanoutKeys,
  type ItemOutcome,
  itemOutcomeSchema,
  type RangeItem,
  type RangeResult,
} from './fanoutTypes.ts';
import { FINISH_MAX_IDS } from './finishMaxIds.ts';

/**
 * The finish step of the fan-out, the one writer of what needs one: the days split into ranges (their
 * pass proven complete, or not, over the union by `record_id` of every range, under `passVerdict`'s rules),
 * the digest and META, and the run summary; then the lease is released. Run again (a retried step) it
 * returns the summary it stored the first time: the digest is appended once per orchestration.
 */
export async function finishFanout(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  plan: FanoutPlanOutput,
): Promise<RunSummary> {
  const { objects, state, clock, logger } = deps;
  const finishedKey = fanoutKeys.finished(plan.orchestrationId);
  const stored = await mapJobObjects.read(objects, finishedKey, storedSummarySchema);
  if (stored) return stored as unknown as RunSummary;

  const items = await mapJobObjects.items(objects, plan.itemsKey, fanoutItemSchema);
  const stepOutcomes = await mapJobObjects.outcomes(
    objects,
    items,
    (item) => fanoutKeys.itemOutcome(plan.orchestrationId, item.id),
    itemOutcomeSchema,
    'missing',
  );
  // An item whose worker left no outcome (killed, timed out) failed: its day is failed, the others go on.
  const outcomes = new Map<string, ItemOutcome>(
    items.map((item, i) => [item.id, stepOutcomes[i] ?? noOutcome(item)] as const),
  );
  const results: DayResult[] = [];
  const failedDays: FailedDay[] = [];
  const deferredDays: Day[] = [];
  const gaps: Day[] = [...plan.gaps];
  const fail = async (day: Day, code: string, message: string) => {
    const previous = (await state.getDay(day)) ?? blankDay(day);
    const known = Object.hasOwn(ERROR_CODES, code) ? (code as ArchiverErrorCode) : 'INTERNAL';
    const failed = failedDayState(previous, new ArchiverError(known, message), clock.now());
    await putDayMerging(deps, failed).catch(() => undefined);
    failedDays.push({
      day,
      code: failed.failure?.code ?? 'INTERNAL',
      message,
      attempts: failed.failure?.attempts ?? 1,
    });
  };
  const ranged = new Map<Day, RangeItem[]>();
  for (const item of items) {
    const outcome = outcomes.get(item.id) as ItemOutcome;
    if (item.kind === 'range') {
      ranged.set(item.day, [...(ranged.get(item.day) ?? []), item]);
    } else if (outcome.due) {
      results.push(...(outcome.due.results as DayResult[]));
      failedDays.push(...(outcome.due.failedDays as FailedDay[]));
      deferredDays.push(...outcome.due.deferredDays);
      gaps.push(...outcome.due.gaps);
    } else {
      await fail(item.day, outcome.code ?? 'INTERNAL', outcome.message ?? 'the day failed');
    }
  }
  for (const [day, ranges] of ranged) {
    const bad = ranges.map((r) => outcomes.get(r.id) as ItemOutcome).find((o) => !o.ok || !o.range);
    if (bad) {
      await fail(day, bad.code ?? 'INTERNAL', `page range ${bad.id}: ${bad.message ?? 'failed'}`);
      continue;
    }
    const found = ranges.map((r) => outcomes.get(r.id)?.range as RangeResult);
    const previous: DayState = (await state.getDay(day)) ?? blankDay(day);
    // At most the ids earlier passes kept plus each range's own (a range skips the carried ones).
    const carried = (ranges[0]?.pass ?? 1) > 1 ? (previous.walk?.passStart ?? 0) : 0;
    const ids = carried + found.reduce((a, r) => a + r.distinct, 0);
    const most = options.finishMaxIds ?? FINISH_MAX_IDS;
    if (ids > most) {
      await fail(
        day,
        'DAY_TOO_BIG',
        `the day's ranges hold up to ${ids} ids, more than the ${most} one finish step unions in its memory`,
      );
      continue;
    }
    const done = await concludePass(deps, options, plan, ranges, found, previous);
    results.push(done.result);
    if (done.result.interrupted) deferredDays.push(day);
  }
  // A steady orchestration appends after the head the state recorded (checked by its plan), from the notes;
  // one that reconciled in full digests from the listing, as a run does (a weekly one follows the head).
  const reconciled = plan.reconcile !== false;
  const head =
    reconciled && plan.reconcileFrom === undefined ? undefined : (await state.getMeta())?.chainHead;
  const digest = await runStages.appendDigestSafely(deps, plan.orchestrationId, results, head);
  const finished = clock.now();
  const ok = failedDays.length === 0 && deferredDays.length === 0;
  await runStages.putMetaSafely(deps, finished, ok, digest, reconciled);
  const days = new Map((await state.listDays()).map((d) => [d.day, d] as const));
  const started = new Date(plan.startedAt);
  const summary = runStages.summarizeRun({
    runId: plan.orchestrationId,
    started,
    finished,
    today: toDay(started),
    daysPlanned: new Set(items.map((i) => i.day)).size,
    results,
    failedDays,
    deferredDays,
    gaps,
    stoppedByDeadline: deferredDays.length > 0,
    atRisk: daysAtRisk(toDay(started), plan.windowDays, days),
    ...(digest ? { digest } : {}),
    ...(plan.pending ? { pending: plan.pending } : {}),
  });
  await mapJobObjects.write(objects, finishedKey, summary);
  await state
    .releaseLease(plan.lease)
    .catch((e: unknown) => logger.warn('could not release the lease', { error: String(e) }));
  for (const r of ranged.values()) {
    for (const item of r)
      await objects.deleteStaging(fanoutKeys.rangeIds(plan.orchestrationId, item.id)).catch(() => {});
  }
  return summary;
}

/** The outcome of an item whose worker left none. */
function noOutcome(item: FanoutItem): ItemOutcome {
  return {
    id: item.id,
    day: item.day,
    ok: false,
    code: 'INTERNAL',
    message: 'the item left no outcome: its worker failed',
  };
}

/** A summary the finish step stored (written by this code): read back as it is. */
const storedSummarySchema = z.looseObject({ runId: z.string(), days: z.array(z.unknown()) });

/**
 * One pass of a giant day, walked in ranges: the union of the ranges' ids (and of the ids earlier passes
 * took) decides, by `passVerdict`'s rules, whether the day is complete; if not, the day's state keeps where it
 * stands (the next pass, the union kept beside the staging files), as a walk the deadline cut does.
 */
async function concludePass(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  plan: FanoutPlanOutput,
  ranges: RangeItem[],
  found: RangeResult[],
  previous: DayState,
): Promise<{ result: DayResult }> {
  const first = ranges[0] as RangeItem;
  const { day, pass, size, planned } = first;
  const before = pass > 1 ? previous.walk : undefined;
  const union = (pass > 1 ? await loadWalkIds(deps.objects, day) : undefined) ?? new IdSet();
  const carried = union.size;
  for (const r of found) {
    const bytes = await deps.objects.get(r.idsKey);
    if (bytes) await addIdLines(bytes, union);
  }
  const totals = new Set([...(before?.totals ?? []), ...found.flatMap((r) => r.totals)]);
  const distinct = union.size;
  const pages = (before?.pages ?? 0) + found.reduce((a, r) => a + r.pages, 0);
  const verdict = passVerdict({
    totals,
    passTotals: found.flatMap((r) => r.totals),
    totalBefore: Math.max(0, ...(before?.totals ?? [])),
    open: mayStillBeOpen(day, deps.clock.now()),
    observedBefore: before?.observed ?? 0,
    shortPages: found.flatMap((r) => (r.short ? [r.short] : [])),
    size,
    collected: distinct,
    passStart: carried,
    pass,
    stalledBefore: before?.stalled ?? 0,
    barrenBefore: before?.barren ?? 0,
    maxPasses: options.maxPasses,
  });
  const { total, observed, stalled, barren, complete, ends, shortfall } = verdict;
  const progress: WalkProgress = {
    passes: pass + 1,
    nextPage: 0,
    size,
    planned,
    totals: [...totals],
    observed,
    stalled,
    barren,
    passStart: distinct,
    pages,
  };
  if (!ends) await saveWalkIds(deps.objects, day, union);
  const quarantined = found.reduce((a, r) => a + r.quarantined, 0);
  const next = await putDayMerging(
    deps,
    nextDayState(
      previous,
      {
        age: first.age,
        complete,
        interrupted: !ends,
        totalElements: total,
        distinctSeen: distinct,
        shortfall,
        quarantined,
        ...(ends ? {} : { progress }),
      },
      deps.clock.now(),
      plan.windowDays,
    ),
  );
  return {
    result: {
      day,
      reason: first.reason,
      totalElements: total,
      distinctSeen: distinct,
      newRecords: found.reduce((a, r) => a + r.newRecords, 0),
      quarantined,
      shortfall,
      passes: pass,
      pages,
      pagesThisRun: pages,
      files: found.reduce((a, r) => a + r.files, 0),
      bytes: found.reduce((a, r) => a + r.bytes, 0),
      sealed: next.sealed,
      complete,
      scannedAt: plan.startedAt,
      unreliableTotals: verdict.unreliableTotals,
      interrupted: !ends,
    },
  };
}
