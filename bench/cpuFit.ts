/**
 * A run's CPU split into what it costs whatever it fetches and what each page adds: the least-squares line
 * through the runs' (pages, CPU seconds). The runs of one case differ in pages (the first, the resumed, the
 * last and short one), so the line separates a run's start-up (module load, state read, commits) from the
 * pages' own work, which `cpuMsPerPage` (a run's CPU ÷ its pages) mixes.
 */
export interface CpuFit {
  /** The slope: CPU ms each page adds. */
  msPerPage: number;
  /** The intercept: CPU seconds a run costs with no page. */
  fixedSeconds: number;
  /** Runs the line is fitted through. */
  runs: number;
}

/**
 * Runs whose pages spread over less than this share of the largest run's do not separate the two parts: the
 * line through runs of 256, 252 and 237 pages is the noise of their CPU (a slope of −0.2 ms a page, measured).
 */
export const MIN_PAGES_SPREAD = 0.5;

/** The fit over `runs`, or undefined when their pages do not spread over {@link MIN_PAGES_SPREAD} of the largest. */
export function cpuFit(runs: readonly { pagesThisRun: number; cpuSeconds: number }[]): CpuFit | undefined {
  const n = runs.length;
  if (n < 2) return undefined;
  const pages = runs.map((r) => r.pagesThisRun);
  if (Math.max(...pages) - Math.min(...pages) < MIN_PAGES_SPREAD * Math.max(...pages)) return undefined;
  const mx = runs.reduce((a, r) => a + r.pagesThisRun, 0) / n;
  const my = runs.reduce((a, r) => a + r.cpuSeconds, 0) / n;
  const sxx = runs.reduce((a, r) => a + (r.pagesThisRun - mx) ** 2, 0);
  if (sxx === 0) return undefined;
  const sxy = runs.reduce((a, r) => a + (r.pagesThisRun - mx) * (r.cpuSeconds - my), 0);
  const slope = sxy / sxx;
  return {
    msPerPage: Math.round(slope * 1000 * 100) / 100,
    fixedSeconds: Math.round((my - slope * mx) * 100) / 100,
    runs: n,
  };
}
