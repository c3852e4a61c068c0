import { ArchiverError, toDay } from '../../foundation/index.ts';
import { publishScopeOf, publishStaged } from '../commit/publishStaged.ts';
import { sweepStaging } from '../commit/sweepStaging.ts';
import { type PlannedDay, windowStartOf } from '../days/planDays.ts';
import { checkArchiveKeys } from '../keys/checkArchiveKeys.ts';
import { rebuildStateFromArchive } from '../recover/rebuildStateFromArchive.ts';
import { runStages } from '../run/runStages.ts';
import type { ArchiveDeps, ArchiveOptions } from '../run/runTypes.ts';
import { type FanoutItem, type FanoutPlanOutput, fanoutKeys, rangeItemId } from './fanoutTypes.ts';

export interface FanoutSettings {
  /** The orchestration (the state machine's execution name): it holds the lease, its workers commit under it. */
  orchestrationId: string;
  /** Pages of one map item: a day of more pages is split into ranges of this many. */
  rangePages: number;
  /** How long the orchestration's lease lasts (the state machine's own timeout). */
  leaseTtlMs: number;
}

/** The lease owner of an orchestration: one at a time, whatever number of workers run under it. */
export const fanoutOwner = (orchestrationId: string): string => `fanout:${orchestrationId}`;

/**
 * The plan step of the fan-out: what a run does before its first day (publish what is pending, preflight,
 * the archive's keys, the lease, state rebuilt from the archive, gaps), then one map item per due day, and
 * for a day of more than `rangePages` pages one item per range of pages of its next pass (the first page's
 * echoed size and totals say how many). The items go to the store (the Distributed Map reads them there);
 * the lease stays held by the orchestration until the finish step releases it.
 */
export async function planFanout(
  deps: ArchiveDeps,
  options: ArchiveOptions,
  settings: FanoutSettings,
): Promise<FanoutPlanOutput> {
  const { api, state, clock, logger } = deps;
  const started = clock.now();
  const today = toDay(started);
  // As a run does: a steady orchestration trusts the state and works from what it noted; a missing state,
  // a head that does not match the archive's, or a week since the last reconciliation reconciles.
  const known = await state.getMeta();
  const reconcile = await runStages.reconcileDue(deps, known, started);
  // A weekly reconciliation works from the chain since the last one (`reconcileSince`), as a run's does.
  const since = reconcile
    ? await runStages.reconcileSince(deps, known, today, options.windowDays)
    : undefined;
  const pending = await publishStaged(deps, publishScopeOf(reconcile, since, known?.pendingDigest ?? []));
  const signal = options.budget?.signal();
  await runStages.preflight(api, today, signal);
  const meta = await runStages.establishMeta(deps, started, windowStartOf(today, options.windowDays));
  await checkArchiveKeys(deps.objects, deps);
  const lease = await state.acquireLease(fanoutOwner(settings.orchestrationId), started, settings.leaseTtlMs);
  if (!lease) {
    throw new ArchiverError(
      'LEASE_HELD',
      'Another archiver run or orchestration holds the lease; this one did nothing. It resumes on the next schedule.',
    );
  }
  try {
    // State is a cache of the archive: what the archive holds and the state lacks is put back first.
    // The fan-out runs the schedule's plan (backfills go to the archiver function).
    const { onlyDays: _onlyDays, ...scheduled } = options;
    if (reconcile) await rebuildStateFromArchive({ objects: deps.objects, state, logger, clock }, since);
    const windowDays = Math.min(options.windowDays, meta.learnedWindowDays ?? options.windowDays);
    const read = since ? since.from : reconcile;
    const { days, due, gaps } = await runStages.planRun(deps, scheduled, today, windowDays, meta, read);
    if (since) await runStages.sweepInScope(deps, since, started);
    else if (reconcile) await sweepStaging(deps, started);
    const items: FanoutItem[] = [];
    for (const planned of due) {
      const walk = days.get(planned.day)?.walk;
      // A walk cut mid-pass goes on in one worker, exactly as a run resumes it.
      const split = walk && walk.nextPage > 0 ? undefined : await rangesOf(planned, walk?.passes ?? 1);
      items.push(...(split ?? [{ kind: 'day' as const, id: planned.day, ...planned }]));
    }
    const itemsKey = fanoutKeys.items(settings.orchestrationId);
    await deps.objects.put(itemsKey, JSON.stringify(items));
    logger.info('fan-out planned', { days: due.length, items: items.length });
    return {
      orchestrationId: settings.orchestrationId,
      lease,
      startedAt: started.toISOString(),
      windowDays,
      itemsKey,
      itemCount: items.length,
      gaps,
      reconcile,
      ...(since ? { reconcileFrom: since.from } : {}),
      pending: {
        broken: pending.broken,
        changed: pending.changed,
        oldestUnpublishedHours: pending.oldestUnpublishedHours,
      },
    };
  } catch (error) {
    await state.releaseLease(lease).catch(() => {});
    throw error;
  }

  /** The ranges of a giant day's next pass, or undefined for a day one worker walks whole. */
  async function rangesOf(planned: PlannedDay, pass: number): Promise<FanoutItem[] | undefined> {
    let first: Awaited<ReturnType<typeof api.historyPage>>;
    try {
      first = await api.historyPage(planned.day, planned.day, 0, options.pageSize, signal ? { signal } : {});
    } catch {
      // Whatever the first page says (a 400 at the window's edge, a failure) the day's own walk says again,
      // and handles as a run does: a gap, a recorded failure.
      return undefined;
    }
    const size = first.size > 0 ? first.size : Math.max(first.content.length + first.rejected.length, 1);
    const pages = Math.max(1, first.totalPages, Math.ceil(first.totalElements / size));
    if (pages <= settings.rangePages) return undefined;
    const ranges: FanoutItem[] = [];
    for (let from = 0; from < pages; from += settings.rangePages) {
      const to = Math.min(pages, from + settings.rangePages);
      ranges.push({
        kind: 'range',
        id: rangeItemId(planned.day, pass, from),
        ...planned,
        pass,
        from,
        to,
        last: to === pages,
        size,
        planned: pages,
      });
    }
    return ranges;
  }
}
