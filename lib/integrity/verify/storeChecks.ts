import type { ChainEntry, ObjectStore } from '../../archive/index.ts';
import type { ChecksumJobs } from './checksumJobs.ts';
import { type ChainObject, checksumWeek } from './checksumRotation.ts';
import type { RotationSlice } from './listAndRotate.ts';
import type { ChecksumProgress, VerifyProgress } from './verifyProgress.ts';
import type { VerifyFailure } from './verifyTypes.ts';

/** What the weekly verify reports of its checksum jobs. */
export interface WeeklyJobs {
  submitted: { id: string; kind: 'new' | 'rotation'; after?: string; before: string; objects: number }[];
  /** Judged jobs whose verdicts this week reported. */
  reported: number;
  /** Jobs still running (submitted earlier). */
  running: number;
}

/**
 * The weekly verify's store-side part: the new digests and the files they list (with the store's time of
 * each: one HEAD a new object) go into the checksum rotation, which submits this week's jobs and reports
 * the verdicts of judged ones. Nothing here reads or lists old objects.
 */
export async function storeChecks(
  jobs: ChecksumJobs,
  objects: ObjectStore,
  progress: VerifyProgress & { checksums?: ChecksumProgress },
  o: {
    fresh: readonly ChainEntry[];
    dated: readonly ChainObject[];
    head: { key: string };
    now: Date;
    periodWeeks: number;
  },
): Promise<{
  failures: VerifyFailure[];
  checksums: ChecksumProgress;
  jobs: WeeklyJobs;
  listing: { boundary: string; objects: number; unlisted: string[] };
  rotation: RotationSlice;
}> {
  const checksums = progress.checksums as ChecksumProgress;
  const digests: ChainObject[] = [];
  for (const e of o.fresh) {
    const info = await objects.head(e.key);
    digests.push({
      key: e.key,
      sha256: e.sha256,
      ...(info?.modifiedAt ? { modifiedAt: info.modifiedAt } : {}),
    });
  }
  const headAt = digests.find((d) => d.key === o.head.key)?.modifiedAt;
  const boundary = headAt ?? new Date(progress.boundary);
  const week = await checksumWeek(jobs, checksums, {
    fresh: [...digests, ...o.dated],
    since: new Date(progress.boundary),
    boundary,
    now: o.now,
    periodWeeks: o.periodWeeks,
  });
  return {
    failures: week.failures,
    checksums: week.next,
    jobs: {
      submitted: week.submitted.map((j) => ({
        id: j.id,
        kind: j.kind,
        ...(j.after ? { after: j.after } : {}),
        before: j.before,
        objects: j.expected.count,
      })),
      reported: week.reported,
      running: checksums.jobs.length,
    },
    listing: { boundary: boundary.toISOString(), objects: progress.objects, unlisted: progress.unlisted },
    rotation: {
      from: 0,
      to: 0,
      files: week.submitted.find((j) => j.kind === 'rotation')?.expected.count ?? 0,
      byChecksum: week.submitted.reduce((n, j) => n + j.expected.count, 0),
      read: 0,
      next: progress.rotation,
    },
  };
}
