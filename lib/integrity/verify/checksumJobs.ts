/**
 * Port: a store-side checksum job (S3 Batch Operations "Compute checksum"): the store computes the
 * full-object SHA-256 of every object it holds that was written in a time range, without the caller
 * reading a byte, and writes a completion report. The weekly verify submits the jobs; the report is
 * compared with what the digests list by `checkChecksumReport` when the job is done.
 */
/**
 * Where a job's completion report goes in the archive bucket (`<prefix>job-<id>/manifest.json` and
 * `results/*.csv`, as S3 writes them): outside every prefix the chain covers, and never write-once.
 */
export const CHECKSUM_REPORTS_PREFIX = 'checksum-jobs/';

export interface ChecksumJobs {
  /**
   * Starts one job over the objects written (by the store's clock) after `createdAfter` (when given) and
   * up to `createdBefore`. `token` makes a retried submit the same job. Returns the job's id.
   */
  submit(request: ChecksumJobRequest): Promise<string>;
  /** The job's report once it is done (every object's SHA-256, or why it has none); undefined while it runs. */
  report(jobId: string): Promise<ChecksumReport | undefined>;
}

export interface ChecksumJobRequest {
  createdAfter?: Date;
  createdBefore: Date;
  token: string;
}

/** One row of a completion report. */
export interface ChecksumRow {
  key: string;
  /** Lower-case hex SHA-256 the store computed, when the task succeeded. */
  sha256?: string;
  /** Why the task failed (the object was gone, access denied, ...), when it did. */
  error?: string;
}

export interface ChecksumReport {
  /** `complete`: every object was processed; `failed`: the job stopped (its rows are what it did). */
  status: 'complete' | 'failed';
  rows: AsyncIterable<ChecksumRow>;
}
