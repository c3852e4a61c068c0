import {
  DEFAULT_MAX_PASSES,
  type DigestChain,
  digestKeys,
  type ObjectStore,
  readDigestChain,
  type UpstreamApi,
  windowStartOf,
} from '../../archive/index.ts';
import { ArchiverError, addDays, type Clock, type Day, toDay } from '../../foundation/index.ts';
import { checkChain } from './checkChain.ts';
import { checkFiles } from './checkFiles.ts';
import { checkHead, type ExpectedHead } from './checkHead.ts';
import { compareUpstream } from './compareUpstream.ts';
import { countLostSessions } from './countLostSessions.ts';
import { DEFAULT_INGESTION_GRACE_MS, lastCompleteScans } from './lastScans.ts';
import type { VerifyResult } from './verifyTypes.ts';

export interface VerifyOptions {
  /** With an API (and the archive's token key: ids are keyed), every window day is walked and compared. */
  api?: UpstreamApi;
  tokenKey?: Uint8Array;
  maxPagesPerDay?: number;
  windowDays: number;
  pageSize?: number;
  pageConcurrency?: number;
  maxPasses?: number;
  /** Upstream ingestion lag to allow (default 48 h): a session that ended this long before a scan may still be pending. */
  graceMs?: number;
  /** Heads recorded outside the bucket (the state's, an auditor's `--expect-head`): a chain that ends before one is `truncated`. */
  expectedHeads?: ExpectedHead[];
  /**
   * Check only what was written from this day on: digests created since then (and the link into the
   * first of them), and the files of partitions from this day on. For frequent quick checks; the weekly
   * check stays full.
   */
  since?: Day;
  /** Told after each file is checked (files and bytes so far, of how many listed): for a progress line. */
  onProgress?: (done: { files: number; bytes: number; listed: number }) => void;
  /**
   * Leave to the next check the objects no digest lists that were written after the newest digest
   * (`awaitingDigest`), as the weekly verify does: files are published before the digest that lists them
   * (the snapshots' wait for the next archive run's), and the weekly verify can start beside a run. Unset,
   * as an auditor's `verify`: every unlisted object is a failure.
   */
  awaitNewestDigest?: boolean;
}

/**
 * Checks the archive on its own, read-only and without the state table (works with read-only access to
 * `file://` or `s3://`): the digest chain and its signatures, every data file's SHA-256 and row count,
 * that every data object is listed and every listed file exists, and that no `record_id` repeats.
 * With an API, it also walks the window and reports what the archive lacks as pending or missing.
 * `ok` is false exactly when `failures` is not empty; pending records are not failures.
 */
export async function verifyArchive(
  deps: { objects: ObjectStore; clock: Clock },
  options: VerifyOptions,
): Promise<VerifyResult> {
  const checkedAt = deps.clock.now();
  const chain = await readDigestChain(deps.objects);
  // With `since`, chain findings about digests written before that day are left to the full check.
  const firstSince = options.since === undefined ? 1 : firstDigestSince(chain, options.since);
  const failures = checkChain(chain).filter(
    (f) =>
      firstSince <= 1 || f.object === undefined || (digestKeys.seqOf(f.object) ?? firstSince) >= firstSince,
  );
  for (const expected of options.expectedHeads ?? []) failures.push(...checkHead(chain, expected));
  const newest = chain.entries.at(-1);
  const today = toDay(checkedAt);
  // Ids are needed only for the window (one day of margin each side: the API's day vs UTC start_time).
  const from = addDays(windowStartOf(today, options.windowDays), -1);
  const to = addDays(today, 1);
  // With `since` and the API, the partition before it too: a day's records may sit one partition early.
  const filesSince =
    options.since !== undefined && options.api !== undefined ? addDays(options.since, -1) : options.since;
  // Files are published before the digest that lists them: one written after the newest digest awaits it.
  const digestedUntil =
    options.awaitNewestDigest && newest ? (await deps.objects.head(newest.key))?.modifiedAt : undefined;
  const files = await checkFiles(
    deps.objects,
    chain,
    (dt) => options.api !== undefined && dt >= from && dt <= to,
    filesSince,
    options.onProgress,
    digestedUntil,
  );
  failures.push(...files.failures);
  const result: VerifyResult = {
    ok: false,
    checkedAt: checkedAt.toISOString(),
    digests: chain.entries.length,
    lastDigestAt: newest?.digest?.createdAt ?? null,
    head: newest ? { seq: newest.seq, key: newest.key, sha256: newest.sha256 } : null,
    expectedHeads: (options.expectedHeads ?? []).map(({ seq, sha256, source }) => ({ seq, sha256, source })),
    ...(options.since === undefined ? {} : { since: options.since }),
    files: files.files,
    rows: files.rows,
    records: files.records,
    failures,
    days: [],
    pending: 0,
    lostSessions: await countLostSessions(deps.objects, { windowDays: options.windowDays, now: checkedAt }),
    ...(files.awaitingDigest.length > 0 ? { awaitingDigest: files.awaitingDigest } : {}),
  };
  if (options.api) {
    if (!options.tokenKey) {
      throw new ArchiverError(
        'CONFIG_INVALID',
        'comparing with the API needs the archive token key (record ids are keyed HMACs)',
      );
    }
    const upstream = await compareUpstream(options.api, files.recordIds, lastCompleteScans(chain), {
      today,
      windowDays: options.windowDays,
      pageSize: options.pageSize ?? 2000,
      concurrency: options.pageConcurrency ?? 4,
      maxPasses: options.maxPasses ?? DEFAULT_MAX_PASSES,
      maxPagesPerDay: options.maxPagesPerDay,
      ...newestRun(chain),
      tokenKey: options.tokenKey,
      graceMs: options.graceMs ?? DEFAULT_INGESTION_GRACE_MS,
      ...(options.since === undefined ? {} : { fromDay: options.since }),
    });
    result.days = upstream.days;
    result.pending = upstream.days.reduce((a, d) => a + d.pending, 0);
    failures.push(...upstream.failures);
  }
  result.ok = failures.length === 0;
  return result;
}

/** When the newest digest was written: the reference for days that no run scanned completely. */
function newestRun(chain: { entries: { digest?: { createdAt: string } | undefined }[] }): {
  newestRunMs?: number;
} {
  const t = Date.parse(chain.entries.at(-1)?.digest?.createdAt ?? '');
  return Number.isNaN(t) ? {} : { newestRunMs: t };
}

/** The first digest written on or after `since` (or past the last one): where a `since` check starts. */
function firstDigestSince(chain: DigestChain, since: Day): number {
  const first = chain.entries.find((e) => (e.digest?.createdAt ?? '') >= since);
  return first?.seq ?? (chain.entries.at(-1)?.seq ?? 0) + 1;
}
