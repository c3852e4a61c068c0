import type { ResultsInput } from './resultsInput.ts';

/** What an entry of the bench runs with. */
export interface BenchContext {
  /** `--quick`: small stand-ins of the measurements. */
  quick: boolean;
  /** When this invocation started (ISO): the stamp of every figure it measures. */
  runAt: string;
  /** The figures of the last run of the same mode (bench/RESULTS.json), when there is one. */
  previous: ResultsInput | undefined;
  /** The figures measured so far by this invocation: an entry may use an earlier entry's. */
  fresh: Partial<ResultsInput>;
  /** Whether `--only` selects `name` (every name without `--only`). */
  selects(name: string): boolean;
  /**
   * Runs one measurement: its result, or `undefined` once its error is logged (one JSON line naming
   * `label`) and counted as a failure of the run.
   */
  attempt<T>(label: Record<string, unknown>, measure: () => Promise<T>): Promise<T | undefined>;
}

/**
 * One entry of the bench's registry (bench/benchEntries.ts): the name `--only` takes, how it measures, and
 * its section of bench/RESULTS.md.
 */
export interface BenchEntry {
  name: string;
  /** The names `--only` selects it by, when not its name alone (the cases: each case's name). */
  names?: readonly string[];
  /** Runs what `--only` selects of the entry (nothing when nothing is); returns its part of the results. */
  run(ctx: BenchContext): Promise<Partial<ResultsInput>>;
  /**
   * Its part of the merged results: this run's figures where it measured them, else the previous run's.
   * Absent for an entry whose figures are only logged.
   */
  merge?(fresh: Partial<ResultsInput>, previous: ResultsInput | undefined): Partial<ResultsInput>;
  /** Its section of RESULTS.md; absent for an entry only logged, or rendered with another entry. */
  render?(input: ResultsInput): string[];
}

/** A figure kept from an earlier run carries that run's time (older results files stamp none of their own). */
export function kept<T extends { measuredAt?: string }>(
  r: T | undefined,
  previous: ResultsInput | undefined,
): T | undefined {
  return r && previous ? { ...r, measuredAt: r.measuredAt ?? previous.at.toISOString() } : r;
}
