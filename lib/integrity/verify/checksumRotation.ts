import { digestKeys, type ObjectInfo } from '../../archive/index.ts';
import { addFingerprints, addObject, emptyFingerprint, type Fingerprint } from './checksumFingerprint.ts';
import type { ChecksumJobs } from './checksumJobs.ts';
import type { ChecksumJobRecord, ChecksumProgress } from './verifyProgress.ts';
import type { VerifyFailure } from './verifyTypes.ts';

export const WEEK_MS = 7 * 86_400_000;

/** The week (of the store's clock) an object written at `at` belongs to. */
export function weekOf(at: Date): number {
  return Math.floor(at.getTime() / WEEK_MS);
}

/** An object the chain accounts for, with the SHA-256 the chain (or the first full check) gives it. */
export interface ChainObject {
  key: string;
  sha256: string;
  modifiedAt?: Date;
}

/** Whether a key is one the chain accounts for (the datasets, the quarantine, the chain itself). */
export function chainCovers(key: string): boolean {
  return digestKeys.writeOncePrefixes.some((p) => key.startsWith(p));
}

/**
 * The starting point, after a full check: every object the chain accounts for, in the week the store
 * wrote it. The rotation's first round starts next week.
 */
export function baselineChecksums(
  objects: readonly ChainObject[],
  keyFiles: Record<string, string>,
  boundary: Date,
  now: Date,
  periodWeeks: number,
): ChecksumProgress {
  const weeks: ChecksumProgress['weeks'] = {};
  for (const o of objects) addToWeek(weeks, o, boundary);
  return {
    weeks,
    keyFiles,
    // From the oldest week: the newest were just checked in full.
    rotation: {
      startedAt: now.toISOString(),
      cursor: Math.min(weekOf(boundary), ...Object.keys(weeks).map(Number)),
      periodWeeks,
    },
    jobs: [],
    verdicts: [],
  };
}

function addToWeek(weeks: ChecksumProgress['weeks'], o: ChainObject, boundary: Date): void {
  const week = String(weekOf(o.modifiedAt ?? boundary));
  weeks[week] = addObject(weeks[week] ?? emptyFingerprint, o.key, o.sha256);
}

export interface ChecksumWeek {
  next: ChecksumProgress;
  failures: VerifyFailure[];
  /** The jobs this week submitted, and the judged ones it reported. */
  submitted: ChecksumJobRecord[];
  reported: number;
}

/**
 * This week's part of the checksum rotation, flat in the archive's age: the objects new since the last
 * check go into their weeks; verdicts of judged jobs are reported (and jobs that never finished); one
 * job covers everything written since the last check, one a slice of older weeks sized so that every
 * week is covered within `periodWeeks - 1` weeks (its report is judged the week after).
 */
export async function checksumWeek(
  jobs: ChecksumJobs,
  progress: ChecksumProgress,
  o: { fresh: readonly ChainObject[]; since: Date; boundary: Date; now: Date; periodWeeks: number },
): Promise<ChecksumWeek> {
  const weeks = { ...progress.weeks };
  let recent: Fingerprint = emptyFingerprint;
  for (const f of o.fresh) {
    addToWeek(weeks, f, o.boundary);
    const at = f.modifiedAt ?? o.boundary;
    if (at > o.since && at <= o.boundary) recent = addObject(recent, f.key, f.sha256);
  }
  const failures: VerifyFailure[] = progress.verdicts.flatMap((v) =>
    v.failures.map((f) => ({ ...f, kind: f.kind as VerifyFailure['kind'] })),
  );
  const pending: ChecksumJobRecord[] = [];
  for (const job of progress.jobs) {
    if (o.now.getTime() - Date.parse(job.submittedAt) > 2 * WEEK_MS) {
      failures.push({
        kind: 'missing-file',
        message: `checksum job ${job.id} (${job.kind}, objects written ${job.after ?? 'ever'} to ${job.before}) has had no judged report for two weeks: those objects are unchecked`,
      });
    } else pending.push(job);
  }
  const now = o.now.toISOString();
  const submitted: ChecksumJobRecord[] = [];
  const submit = async (
    kind: ChecksumJobRecord['kind'],
    after: Date | undefined,
    before: Date,
    expected: Fingerprint,
  ) => {
    const token = `${kind}-${after?.getTime() ?? 0}-${before.getTime()}`;
    const id = await jobs.submit({ ...(after ? { createdAfter: after } : {}), createdBefore: before, token });
    submitted.push({
      id,
      kind,
      submittedAt: now,
      ...(after ? { after: after.toISOString() } : {}),
      before: before.toISOString(),
      expected,
    });
  };
  if (o.boundary > o.since) await submit('new', o.since, new Date(o.boundary.getTime() + 1), recent);

  // The rotation: a cursor over the closed weeks, oldest first, that wraps around. It moves a share of
  // every object each week, so it passes any week within `periodWeeks - 2` weeks however the archive
  // grows; with the week a file's own week takes to close, and the week its report takes to be judged,
  // every object is checked by the store again within `periodWeeks`.
  const upTo = weekOf(o.boundary);
  const closed = Object.keys(weeks)
    .map(Number)
    .filter((w) => w < upTo)
    .sort((a, b) => a - b);
  const total = closed.reduce((n, w) => n + (weeks[String(w)]?.count ?? 0), 0);
  const share = Math.ceil(total / Math.max(1, o.periodWeeks - 2));
  let cursor = progress.rotation.cursor;
  let startedAt = progress.rotation.startedAt;
  let taken = 0;
  for (let pass = 0; pass < 2 && taken < share; pass++) {
    const from = cursor;
    let expected: Fingerprint = emptyFingerprint;
    let end = from;
    for (const w of closed) {
      if (w < from || taken >= share) continue;
      const f = weeks[String(w)] ?? emptyFingerprint;
      expected = addFingerprints(expected, f);
      taken += f.count;
      end = w + 1;
    }
    if (expected.count > 0) {
      await submit('rotation', new Date(from * WEEK_MS - 1), new Date(end * WEEK_MS), expected);
    }
    if (closed.some((w) => w >= end)) {
      cursor = end;
      break;
    }
    // The end of the closed weeks: on from the oldest, in a second job if this one started past it.
    const oldest = closed[0] ?? upTo;
    const wrapped = from > oldest;
    cursor = oldest;
    startedAt = now;
    if (!wrapped) break;
  }
  const rotation = { cursor, periodWeeks: o.periodWeeks, startedAt };
  return {
    next: {
      ...progress,
      weeks,
      rotation,
      jobs: [...pending, ...submitted],
      verdicts: [],
    },
    failures,
    submitted,
    reported: progress.verdicts.length,
  };
}

/** The objects an archive listing shows under the chain's prefixes, with their store times (a full check). */
export function datedObjects(
  listing: readonly ObjectInfo[],
  sha256Of: ReadonlyMap<string, string>,
): ChainObject[] {
  const out: ChainObject[] = [];
  for (const o of listing) {
    const sha256 = sha256Of.get(o.key);
    if (sha256 !== undefined)
      out.push({ key: o.key, sha256, ...(o.modifiedAt ? { modifiedAt: o.modifiedAt } : {}) });
  }
  return out;
}
