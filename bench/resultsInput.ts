import type { ArchiveAgeResult } from './archiveAge.ts';
import type { BigDayResult } from './bigDay.ts';
import type { CaseResult } from './caseResult.ts';
import type { ColdStartResult } from './coldStart.ts';
import type { FanoutLocalResult } from './fanoutLocal.ts';
import type { FanoutFigures } from './fanoutSimulation.ts';
import type { UnionMemory } from './finishUnionMemory.ts';
import type { QuietRun } from './quietRun.ts';
import type { ReportBenchResult } from './reportTargets.ts';
import type { RescanCost } from './rescanCost.ts';
import type { StageCosts } from './stageCosts.ts';
import type { WalkRequests } from './walkRequests.ts';

/** The figures behind bench/RESULTS.md (kept in bench/RESULTS.json, so that `--only` keeps the others'). */
export interface ResultsInput {
  quick: boolean;
  node: string;
  concurrency: number;
  pageSize: number;
  results: CaseResult[];
  cold: ColdStartResult | undefined;
  /** The HTML report of a synthetic 3-year archive (absent in results of older runs). */
  report?: ReportBenchResult | undefined;
  /** `fanout-2M`: how big an account one Lambda and the fan-out serve (absent until measured). */
  fanout?: (FanoutFigures & { measuredAt?: string }) | undefined;
  /** `big-day`: days bigger than one run, walked by CLI runs at real latency (absent until measured). */
  bigDays?: (BigDayResult & { measuredAt?: string })[] | undefined;
  /** `fanout-local`: a big day through the synthesized fan-out under aws-local-stepfunctions (absent until measured). */
  fanoutLocal?: (FanoutLocalResult & { measuredAt?: string })[] | undefined;
  /** `finish-union`: the fan-out finish step's union of a day's ids, peak RSS by size. */
  finishUnion?: (UnionMemory & { measuredAt?: string })[] | undefined;
  /** The "archive age" case (absent in results of older runs). */
  age?: ArchiveAgeResult | undefined;
  at: Date;
  /** 1-minute load average before and after the run: figures from a busy machine are noisy. */
  load: [number, number];
  /**
   * Quiet steady-state runs (CLI, Lambda bundle), day-walk requests, a rescan's CPU, each
   * stage of a record's work alone.
   */
  quiet?: QuietRun[] | undefined;
  walks?: WalkRequests[] | undefined;
  rescan?: RescanCost | undefined;
  stages?: StageCosts | undefined;
}
