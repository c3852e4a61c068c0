/**
 * What a full verify job costs, from what it reads: the requests each step sends (counted in
 * test/verify/verifyJob.int.test.ts against a counting store), the bytes, the Lambda time and the state
 * transitions. Prices are AWS's list prices in us-east-1 (S3 Standard requests, Lambda on arm64, Step
 * Functions Standard); docs/integrity.md shows this function's figures.
 */
export const VERIFY_JOB_PRICES = {
  getPer1000: 0.0004,
  putOrListPer1000: 0.005,
  lambdaGbSecond: 0.0000133334,
  lambdaRequestPerMillion: 0.2,
  transitionPer1000: 0.025,
} as const;

/**
 * The assumptions beside the counts: how fast one function reads and hashes (S3 reads 8 at a time, SHA-256
 * far faster than that), the function's memory (the stack deploys the job's function with it), and the state transitions of one item (its
 * child execution's start, task and end; retries add theirs).
 */
export const VERIFY_JOB_ASSUMPTIONS = {
  readMBPerSecond: 100,
  memoryGb: 1,
  transitionsPerItem: 3,
} as const;

/** Ranged reads are 1 MiB: the hash's chunk. */
const RANGE_BYTES = 1024 * 1024;

export interface VerifyJobShape {
  bytes: number;
  files: number;
  /** Folders (partitions) plus the chain. */
  items: number;
  digests: number;
}

export interface VerifyJobCost {
  gets: number;
  putsAndLists: number;
  gbRead: number;
  lambdaGbSeconds: number;
  transitions: number;
  dollars: { requests: number; lambda: number; transitions: number; total: number };
}

/**
 * The requests are upper bounds of what the steps send: a file costs its 1 MiB ranges (its last one short)
 * plus up to four reads (the footer's length, the footer, the id column of a row group), an item three reads (its listing, its
 * stored result, the merge's read of it), two writes (its listing, its result) and one listing of its
 * folder, each digest two reads (the plan and the chain item), and listing the archive one request a
 * thousand keys.
 */
export function verifyJobCost(shape: VerifyJobShape): VerifyJobCost {
  const p = VERIFY_JOB_PRICES;
  const a = VERIFY_JOB_ASSUMPTIONS;
  const gets =
    Math.ceil(shape.bytes / RANGE_BYTES) + 5 * shape.files + 3 * shape.items + 2 * shape.digests + 20;
  const putsAndLists =
    3 * shape.items + Math.ceil(shape.files / 1000) + 2 * Math.ceil(shape.digests / 1000) + 12;
  const lambdaGbSeconds = (a.memoryGb * shape.bytes) / (a.readMBPerSecond * 1e6);
  const transitions = a.transitionsPerItem * shape.items + 6;
  const requests = (gets / 1000) * p.getPer1000 + (putsAndLists / 1000) * p.putOrListPer1000;
  const lambda = lambdaGbSeconds * p.lambdaGbSecond + ((shape.items + 2) / 1e6) * p.lambdaRequestPerMillion;
  const steps = (transitions / 1000) * p.transitionPer1000;
  return {
    gets,
    putsAndLists,
    gbRead: shape.bytes / 1e9,
    lambdaGbSeconds,
    transitions,
    dollars: { requests, lambda, transitions: steps, total: requests + lambda + steps },
  };
}
