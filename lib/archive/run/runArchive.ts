import { archiveDueDays } from './archiveDueDays.ts';
import { finishRun } from './finishRun.ts';
import { prepareRun } from './prepareRun.ts';
import type { ArchiveDeps, ArchiveOptions, RunSummary } from './runTypes.ts';

/**
 * One archiving run, in three parts:
 * - prepare (`prepareRun`): publish what earlier runs committed, check the key, take the lease, put back
 *   state the archive holds, plan the due days;
 * - days (`archiveDueDays`): walk each day, append what is new exactly once, and record progress after
 *   every day, so a killed run loses nothing and a later run resumes; a failing day is recorded and the
 *   run goes on; a day the server no longer answers for becomes a gap and teaches the real window;
 * - finish (`finishRun`): append the digest, record the run in META, sum it up.
 * One writer at a time (lease). The run's one deadline budget (`options.budget`) keeps new days from
 * starting once spent and cuts the walks, which commit what they hold.
 */
export async function runArchive(deps: ArchiveDeps, options: ArchiveOptions): Promise<RunSummary> {
  const run = await prepareRun(deps, options);
  let summary: RunSummary;
  try {
    const outcome = await archiveDueDays({
      // The days ask the API through the run's: its first pages may be under way already.
      deps: { ...deps, api: run.api },
      options,
      due: run.due,
      days: run.days,
      windowDays: run.windowDays,
      committer: run.committer,
      tmpDir: run.tmpDir,
      meta: run.meta,
      budget: run.budget,
      renewLease: run.renewLease,
    });
    summary = await finishRun(deps, options, { ...run, active: await run.active }, outcome);
  } finally {
    // The snapshot ran beside the days: it ends before the lease is given back.
    await run.active;
    await run.close();
  }
  // Whether the run, lease given back, ended by its deadline: what it kept for its commits, how late.
  const endsAt = options.budget?.endsAt;
  if (!options.budget || !endsAt) return summary;
  const overrunMs = deps.clock.now().getTime() - endsAt.getTime();
  return { ...summary, deadline: { endsAt: endsAt.toISOString(), keptMs: options.budget.keepMs, overrunMs } };
}
