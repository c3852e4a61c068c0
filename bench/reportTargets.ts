/** What the report bench (`report-3y`) measures, and its targets. */
export interface ReportBenchResult {
  days: number;
  bytes: number;
  /** Building the model (digests read, calendar) and rendering the HTML, median of the runs. */
  renderMs: number;
  /** First contentful paint of the page in headless Chromium, median of the runs. */
  firstPaintMs: number;
  samplesMs: number[];
  measuredAt?: string;
}

export const REPORT_TARGETS = { maxBytes: 2 * 1_048_576, maxFirstPaintMs: 1000 } as const;
