import { archiveDueDays } from './archiveDueDays.ts';
import { establishMeta } from './establishMeta.ts';
import { appendDigestSafely, putMetaSafely } from './finishRun.ts';
import { PartitionDrafts } from './partitionDrafts.ts';
import { planRun } from './planRun.ts';
import { preflight } from './preflight.ts';
import { quarantineRejected } from './quarantineRejected.ts';
import { reconcileDue } from './reconcileDue.ts';
import { reconcileSince, sweepInScope } from './reconcileSince.ts';
import { summarizeRun } from './summarizeRun.ts';

/**
 * The stages of a run that the fan-out shares. Its steps are a run cut in three, across Lambda
 * invocations: the plan step does what a run does before its days, the walk step archives a day (or a
 * range of a day's pages) as a run does, the finish step ends as a run ends. `lib/archive/fanout/` reaches
 * `lib/archive/run/` only through this interface and the run's types (a layer rule says so); everything else in
 * `lib/archive/run/` is the run's own.
 */
export interface RunStages {
  /** Before the days: reconcile or trust the state, the archive's META, the plan and its gaps. */
  reconcileDue: typeof reconcileDue;
  reconcileSince: typeof reconcileSince;
  sweepInScope: typeof sweepInScope;
  preflight: typeof preflight;
  establishMeta: typeof establishMeta;
  planRun: typeof planRun;
  /** The days: each walked, committed and recorded; its rejected records quarantined. */
  archiveDueDays: typeof archiveDueDays;
  PartitionDrafts: typeof PartitionDrafts;
  quarantineRejected: typeof quarantineRejected;
  /** After the days: the digest and META, neither failing the run. */
  appendDigestSafely: typeof appendDigestSafely;
  putMetaSafely: typeof putMetaSafely;
  /** The run's summary, one builder whichever driver ran it. */
  summarizeRun: typeof summarizeRun;
}

export const runStages: RunStages = {
  reconcileDue,
  reconcileSince,
  sweepInScope,
  preflight,
  establishMeta,
  planRun,
  archiveDueDays,
  PartitionDrafts,
  quarantineRejected,
  appendDigestSafely,
  putMetaSafely,
  summarizeRun,
};
