import {
  DEFAULT_MAX_PASSES,
  type DigestChain,
  digestKeys,
  type ObjectInfo,
  type ObjectStore,
  readChainRange,
  readDigestChain,
  readPublicKey,
  sha256OfBytes,
  windowStartOf,
} from '../../archive/index.ts';
import { ArchiverError, addDays, type Clock, toDay } from '../../foundation/index.ts';
import { checkChain } from './checkChain.ts';
import { checkHead } from './checkHead.ts';
import { checkNewFiles } from './checkNewFiles.ts';
import type { ChecksumJobs } from './checksumJobs.ts';
import { baselineChecksums, datedObjects } from './checksumRotation.ts';
import { compareUpstream } from './compareUpstream.ts';
import { countLostSessions } from './countLostSessions.ts';
import { carryLastScans, DEFAULT_INGESTION_GRACE_MS, lastCompleteScans, lastScansFrom } from './lastScans.ts';
import { listAndRotate } from './listAndRotate.ts';
import { readLastFullVerify } from './mergeVerifyJob.ts';
import { storeChecks, type WeeklyJobs } from './storeChecks.ts';
import { type VerifyOptions, verifyArchive } from './verifyArchive.ts';
import type { ChecksumProgress, VerifyProgress } from './verifyProgress.ts';
import type { VerifyFailure, VerifyResult } from './verifyTypes.ts';
import { windowRecordIds } from './windowRecordIds.ts';

/** Weeks within which the weekly verify checks every file again (its rotation period). */
export const DEFAULT_ROTATION_WEEKS = 13;

export interface WeeklyVerifyDeps {
  objects: ObjectStore;
  clock: Clock;
  /**
   * Store-side checksum jobs (S3 Batch Operations). With them, the listing and the per-file rotation give
   * way to two jobs a week and the verdicts of judged ones: the verify's own work is flat in the archive's age.
   */
  jobs?: ChecksumJobs;
}

export interface WeeklyVerifyOptions extends VerifyOptions {
  /** What the last weekly verify recorded (META's `verified`); without it, this one checks everything. */
  progress?: VerifyProgress;
  periodWeeks?: number;
}

/** What a weekly verify did, beside the usual result: what to record, and how much it checked. */
export interface WeeklyFigures {
  /** `full`: no progress yet, everything checked; `incremental`: new work in full, plus a rotation slice. */
  mode: 'full' | 'incremental';
  progress: VerifyProgress;
  /** Digests checked in full because they are new since the last verified head. */
  newDigests: number;
  /** Files those digests list, read and hashed in full. */
  newFiles: number;
  /** The rotation slice: digests `[from, to]`, their files checked by the store's checksum or by reading. */
  rotation: { from: number; to: number; files: number; byChecksum: number; read: number };
  /** With checksum jobs: those submitted this week, and the judged ones reported. */
  jobs?: WeeklyJobs;
}

export type WeeklyVerifyResult = VerifyResult & { weekly: WeeklyFigures };

/**
 * The weekly check, flat in the archive's age. Everything written since the last verified head is checked
 * in full (digests: format, signature, links from that head; files: hash, rows, record ids); the chain
 * from digest 1 is re-checked a slice a week, its files against the store's full-object SHA-256 where it
 * keeps one (a HEAD, no bytes) and by reading otherwise, so every file is checked again within
 * `periodWeeks`; and one listing of the archive, compared by the store's own clock with the last check,
 * finds objects written since that no digest lists, and objects gone. Without progress (the first week)
 * it is a full `verifyArchive`, which sets the baseline.
 */
export async function verifyWeekly(
  deps: WeeklyVerifyDeps,
  options: WeeklyVerifyOptions,
): Promise<WeeklyVerifyResult> {
  const periodWeeks = options.periodWeeks ?? DEFAULT_ROTATION_WEEKS;
  const progress = options.progress;
  if (
    !progress ||
    progress.rotation.periodWeeks !== periodWeeks ||
    (deps.jobs === undefined && progress.checksums !== undefined)
  ) {
    return fullWeek(deps, options, periodWeeks);
  }
  const { objects } = deps;
  const now = deps.clock.now();
  const failures: VerifyFailure[] = [];
  const publicKey = await readPublicKey(objects);
  // A full verify job that finished since the last full check counts as one (it checked every file).
  const job = await readLastFullVerify(objects);
  const fullAt = [progress.fullAt, job?.checkedAt]
    .filter((at): at is string => at !== undefined)
    .sort()
    .at(-1);

  // 1. The chain since the last verified head, that head included: it must still be the digest checked.
  const segment = await readChainRange(objects, progress.head.seq);
  const first = segment[0];
  if (!first) {
    failures.push({
      kind: 'truncated',
      object: progress.head.key,
      message: `${progress.head.key}, the head the last weekly verify checked, is gone: the chain was cut`,
    });
  } else if (first.sha256 !== progress.head.sha256) {
    failures.push({
      kind: 'chain',
      object: first.key,
      message: `${first.key} is not the digest the last weekly verify checked (SHA-256 ${progress.head.sha256}, found ${first.sha256}): it was rewritten`,
    });
  }
  const chain: DigestChain = { entries: segment, strays: [], ...publicKey };
  failures.push(...checkChain(chain, { from: progress.head.seq }));
  for (const expected of options.expectedHeads ?? []) {
    if (expected.seq >= progress.head.seq) failures.push(...checkHead(chain, expected));
  }
  const fresh = segment.slice(1);
  const newest = segment.at(-1);
  // Each day's last complete scan: carried from last week, with the new digests' (the whole chain once,
  // for a progress from before they were carried).
  const keepFrom = lastScansFrom(windowStartOf(toDay(now), options.windowDays));
  const lastScans =
    progress.lastScans === undefined
      ? carryLastScans({}, lastCompleteScans(await readDigestChain(objects)), keepFrom)
      : carryLastScans(progress.lastScans, lastCompleteScans(chain), keepFrom);
  const head = newest ? { seq: newest.seq, key: newest.key, sha256: newest.sha256 } : progress.head;

  // 2. Every file the new digests list, in full.
  const newFiles = fresh.flatMap((e) => (e.digest?.files ?? []).map((file) => ({ file, digest: e.key })));
  const checked = await checkNewFiles(objects, newFiles);
  failures.push(...checked.failures);

  // 3. What was written since, and older files again: by the store's checksum jobs where there are
  // some (flat: two jobs and the verdicts of judged ones), else by one listing and a rotation slice.
  const stored =
    deps.jobs && progress.checksums
      ? await storeChecks(deps.jobs, objects, progress, {
          fresh,
          dated: checked.dated,
          head,
          now,
          periodWeeks,
        })
      : await listAndRotate(objects, progress, segment, head.key, publicKey, now, periodWeeks);
  failures.push(...stored.failures);
  // Jobs newly available (a stack that now has the role): this week as before, and their starting point.
  if (deps.jobs && !progress.checksums) {
    stored.checksums = await baselineOf(objects, new Date(stored.listing.boundary), now, periodWeeks);
  }
  const { listing, rotation } = stored;

  const result: WeeklyVerifyResult = {
    ok: false,
    checkedAt: now.toISOString(),
    digests: head.seq,
    lastDigestAt: newest?.digest?.createdAt ?? null,
    head: newest ? head : null,
    expectedHeads: (options.expectedHeads ?? []).map(({ seq, sha256, source }) => ({ seq, sha256, source })),
    files: checked.files + rotation.files,
    rows: checked.rows,
    records: checked.records,
    failures,
    days: [],
    pending: 0,
    // The window's observations only (two days of margin): the loss count of `verify` less older sessions.
    lostSessions: await countLostSessions(objects, {
      windowDays: options.windowDays,
      now,
      activeSince: addDays(windowStartOf(toDay(now), options.windowDays), -2),
    }),
    weekly: {
      mode: 'incremental',
      progress: {
        at: now.toISOString(),
        head,
        boundary: listing.boundary,
        objects: listing.objects,
        unlisted: listing.unlisted,
        rotation: rotation.next,
        lastScans,
        ...(fullAt ? { fullAt } : {}),
        ...(stored.checksums ? { checksums: stored.checksums } : {}),
      },
      newDigests: fresh.length,
      newFiles: newFiles.length,
      rotation: {
        from: rotation.from,
        to: rotation.to,
        files: rotation.files,
        byChecksum: rotation.byChecksum,
        read: rotation.read,
      },
      ...(stored.jobs ? { jobs: stored.jobs } : {}),
    },
  };
  if (options.api) {
    const ids = await windowRecordIds(objects, windowFilter(now, options));
    await compareWithApi(result, options, lastScans, newest?.digest?.createdAt, ids);
  }
  result.ok = failures.length === 0;
  if (!result.ok) {
    // A failure keeps the verified head where it was: next week checks the same new work again (and
    // reports it again) until it is dealt with; the rotation moves on.
    // The jobs and verdicts move on; the weeks keep what they held, as the new work is counted again.
    result.weekly.progress = {
      ...progress,
      ...(fullAt ? { fullAt } : {}),
      at: now.toISOString(),
      rotation: rotation.next,
      lastScans,
      ...(stored.checksums && progress.checksums
        ? { checksums: { ...stored.checksums, weeks: progress.checksums.weeks } }
        : {}),
    };
  }
  return result;
}

/** The first weekly verify (or one after the period changed): everything, then the baseline. */
async function fullWeek(
  deps: WeeklyVerifyDeps,
  options: WeeklyVerifyOptions,
  periodWeeks: number,
): Promise<WeeklyVerifyResult> {
  // As the incremental weeks do, objects written after the newest digest are left to next week.
  const result = await verifyArchive(deps, { ...options, awaitNewestDigest: true });
  const at = result.checkedAt;
  const unlistedNow = new Set(result.failures.filter((f) => f.kind === 'unlisted').map((f) => f.object));
  const boundary = result.head ? await modifiedAt(deps.objects, result.head.key) : undefined;
  let objects = 0;
  const unlisted: string[] = [];
  for (const prefix of digestKeys.listedPrefixes) {
    for await (const o of deps.objects.list(prefix)) {
      if (unlistedNow.has(o.key)) unlisted.push(o.key);
      else if (!o.modifiedAt || !boundary || o.modifiedAt <= boundary) objects++;
    }
  }
  const checksums = deps.jobs
    ? await baselineOf(deps.objects, boundary ?? new Date(at), new Date(at), periodWeeks)
    : undefined;
  const head = result.head ?? { seq: 1, key: digestKeys.digest(1), sha256: '' };
  // Each window day's last complete scan, for the incremental weeks (one more read of the digests, this once).
  const lastScans = carryLastScans(
    {},
    lastCompleteScans(await readDigestChain(deps.objects)),
    lastScansFrom(windowStartOf(toDay(new Date(at)), options.windowDays)),
  );
  return {
    ...result,
    weekly: {
      mode: 'full',
      progress: {
        at,
        head: { seq: head.seq, key: head.key, sha256: head.sha256 },
        boundary: (boundary ?? new Date(at)).toISOString(),
        objects,
        unlisted,
        // Everything was checked now: the next rotation starts next week, from digest 1.
        rotation: { startedAt: at, nextSeq: head.seq + 1, periodWeeks },
        lastScans,
        fullAt: at,
        ...(checksums ? { checksums } : {}),
      },
      newDigests: result.digests,
      newFiles: result.files,
      rotation: { from: 1, to: 0, files: 0, byChecksum: 0, read: 0 },
    },
  };
}

/**
 * The checksum rotation's starting point: every object the chain lists (and the key files, hashed now),
 * in the week the store wrote it. A recovery path: it reads the whole chain once.
 */
async function baselineOf(
  objects: ObjectStore,
  boundary: Date,
  now: Date,
  periodWeeks: number,
): Promise<ChecksumProgress> {
  const listing: ObjectInfo[] = [];
  for (const prefix of [...digestKeys.listedPrefixes, digestKeys.prefix]) {
    for await (const o of objects.list(prefix))
      if (!o.modifiedAt || o.modifiedAt <= boundary) listing.push(o);
  }
  const chain = await readDigestChain(objects);
  const sha = new Map<string, string>();
  for (const e of chain.entries) {
    sha.set(e.key, e.sha256);
    for (const f of e.digest?.files ?? []) sha.set(f.key, f.sha256);
  }
  const keyFiles: Record<string, string> = {};
  for (const key of [digestKeys.publicKeyPem, digestKeys.publicKeyInfo, digestKeys.keyCheck]) {
    const bytes = await objects.get(key);
    if (bytes) {
      keyFiles[key] = sha256OfBytes(bytes);
      sha.set(key, keyFiles[key]);
    }
  }
  return baselineChecksums(datedObjects(listing, sha), keyFiles, boundary, now, periodWeeks);
}

/** The store's time of one object (its listing entry), or undefined when the store does not say. */
async function modifiedAt(objects: ObjectStore, key: string): Promise<Date | undefined> {
  for await (const o of objects.list(key)) if (o.key === key) return o.modifiedAt;
  return undefined;
}

/** The partitions whose record ids the API comparison needs (the window, one day of margin each side). */
function windowFilter(now: Date, options: VerifyOptions): { from: string; to: string } | undefined {
  if (!options.api) return undefined;
  const today = toDay(now);
  return { from: addDays(windowStartOf(today, options.windowDays), -1), to: addDays(today, 1) };
}

async function compareWithApi(
  result: VerifyResult,
  options: VerifyOptions,
  lastScans: Readonly<Record<string, string>>,
  newestDigestAt: string | undefined,
  recordIds: Set<string>,
): Promise<void> {
  if (!options.api) return;
  if (!options.tokenKey) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      'comparing with the API needs the archive token key (record ids are keyed HMACs)',
    );
  }
  const newestMs = Date.parse(newestDigestAt ?? '');
  const scans = new Map(Object.entries(lastScans).map(([day, at]) => [day, Date.parse(at)] as const));
  const upstream = await compareUpstream(options.api, recordIds, scans, {
    today: toDay(new Date(result.checkedAt)),
    windowDays: options.windowDays,
    pageSize: options.pageSize ?? 2000,
    concurrency: options.pageConcurrency ?? 4,
    maxPasses: options.maxPasses ?? DEFAULT_MAX_PASSES,
    maxPagesPerDay: options.maxPagesPerDay,
    ...(Number.isNaN(newestMs) ? {} : { newestRunMs: newestMs }),
    tokenKey: options.tokenKey,
    graceMs: options.graceMs ?? DEFAULT_INGESTION_GRACE_MS,
  });
  result.days = upstream.days;
  result.pending = upstream.days.reduce((a, d) => a + d.pending, 0);
  result.failures.push(...upstream.failures);
}
