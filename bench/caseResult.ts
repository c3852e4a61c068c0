import type { ColumnSizes } from './columnSizes.ts';
import type { DuckdbRewrite } from './duckdbRewrite.ts';
import type { CpuFigures, ScriptFigures } from './scriptFigures.ts';

/** One case's figures, as `npm run bench` prints them and RESULTS.json keeps them. */
export interface CaseResult {
  bench: 'case';
  name: string;
  description: string;
  records: number;
  pages: number;
  boundSeconds: number;
  /** With latency: pages × latency ÷ concurrency (what the bound is by definition); else the measured bound. */
  boundBasis: 'measured' | 'latency';
  measuredBoundSeconds: number;
  archiverSeconds: number;
  ratio: number;
  peakRssMiB: number;
  /** Where memory was (MiB): RSS before the run, and heap and external memory at the sampled peak. */
  memory?: {
    baselineRss: number;
    /** Seconds into the run when the sampled peak was reached (absent in results of older runs). */
    seconds?: number;
    heapTotal: number;
    heapUsed: number;
    external: number;
    arrayBuffers: number;
  };
  maxRatio?: number;
  maxRssMiB?: number;
  /** When the bench run that measured the case started (ISO); `--only` keeps others' from earlier runs. */
  measuredAt?: string;
  parquetBytes: number;
  gzipJsonlBytes?: number;
  codec: string;
  node: string;
  sizes?: ColumnSizes;
  /** The fetch-then-DuckDB script on the same pages (median of its runs), when the case asks for it. */
  script?: ScriptFigures;
  /** The same script with the archive's two ids computed in DuckDB (`copyWithArchiveIds`), when run. */
  scriptWithIds?: ScriptFigures;
  /** DuckDB's rewrite of the archive's own files, file for file, with the same codec. */
  duckdbRewrite?: DuckdbRewrite;
  /** CPU seconds of the bound's and the archiver's processes. */
  cpu?: CpuFigures;
  /**
   * With latency: the floor under the latency bound (`idealFetch`, fastest of its runs): the requests
   * a walk must make (each page, and the proofs of ends), every one known ahead, fetched and parsed with
   * nothing else; `ratio` is its time over `boundSeconds`, `archiverRequests` what the archiver asked for.
   */
  ideal?: { seconds: number; ratio: number; requests: number; archiverRequests: number };
  /** The median archiver run's history requests as the replaying server saw them arrive. */
  walk?: { pagesPerSecond: number; longestPauseMs: number };
  /**
   * One more archiver run (and script run, when the case has a script) in a CPU quota of the share of a
   * vCPU Lambda gives the stack's engine function (`memoryMb ÷ 1769`); `unconstrained` says why none ran.
   */
  atShare?: {
    cpuShare: number;
    memoryMb: number;
    unconstrained?: string;
    archiverSeconds?: number;
    cpuSeconds?: number;
    /** The measured (unconstrained) bound's seconds ÷ the archiver's at the share. */
    boundFraction?: number;
    pages?: number;
    cpuMsPerPage?: number;
    pagesPerSecond?: number;
    longestPauseMs?: number;
    /** Time the quota held the archiver's threads back (ms). */
    throttledMs?: number;
    scriptSeconds?: number;
    /** Archiver ÷ script, both at the share. */
    scriptRatio?: number;
  };
}
