import {
  type ChainEntry,
  type DigestChain,
  type DigestFile,
  digestKeys,
  type ObjectStore,
  readChainRange,
} from '../../archive/index.ts';
import { checkChain } from './checkChain.ts';
import { checkStoredFiles } from './checkStoredFiles.ts';
import type { ChecksumProgress, VerifyProgress } from './verifyProgress.ts';
import type { VerifyFailure } from './verifyTypes.ts';

const WEEK_MS = 7 * 86_400_000;

/** Without checksum jobs: one listing of the archive, and a rotation slice of files checked one by one. */
export async function listAndRotate(
  objects: ObjectStore,
  progress: VerifyProgress,
  segment: ChainEntry[],
  headKey: string,
  publicKey: Pick<DigestChain, 'publicKey' | 'publicKeyError'>,
  now: Date,
  periodWeeks: number,
) {
  const listing = await checkListing(objects, progress, segment, headKey);
  const rotation = await rotate(objects, progress, publicKey, now, periodWeeks);
  return {
    failures: [...listing.failures, ...rotation.failures],
    listing,
    rotation,
    checksums: undefined as ChecksumProgress | undefined,
    jobs: undefined,
  };
}

/**
 * Lists the archive once. Objects written (by the store's clock) after the last check's boundary and up
 * to the newest digest's must be listed by the digests since; objects written earlier must all still be
 * there (their count); later ones are left to next week. Under `digests/`, only digests and key files.
 */
async function checkListing(
  objects: ObjectStore,
  progress: VerifyProgress,
  segment: ChainEntry[],
  headKey: string,
): Promise<{ failures: VerifyFailure[]; boundary: string; objects: number; unlisted: string[] }> {
  const failures: VerifyFailure[] = [];
  const since = new Date(progress.boundary);
  const keyFiles = new Set([digestKeys.publicKeyPem, digestKeys.publicKeyInfo, digestKeys.keyCheck]);
  const segmentKeys = new Set(segment.map((e) => e.key));
  const listed = new Set(segment.flatMap((e) => (e.digest?.files ?? []).map((f) => f.key)));
  const digestObjects = [];
  for await (const o of objects.list(digestKeys.prefix)) digestObjects.push(o);
  const until = digestObjects.find((o) => o.key === headKey)?.modifiedAt ?? since;
  const isNew = (at: Date | undefined) => at !== undefined && at > since && at <= until;
  for (const o of digestObjects) {
    if (!isNew(o.modifiedAt) || keyFiles.has(o.key) || segmentKeys.has(o.key)) continue;
    failures.push({
      kind: 'unlisted',
      object: o.key,
      message:
        digestKeys.seqOf(o.key) === undefined
          ? `${o.key} is under digests/ but is not a digest`
          : `${o.key} was written after the digests that follow it: replaced since the last check`,
    });
  }
  const known = new Set(progress.unlisted);
  const unlisted: string[] = [];
  let older = 0;
  let accounted = 0;
  for (const prefix of digestKeys.listedPrefixes) {
    for await (const o of objects.list(prefix)) {
      if (known.has(o.key)) {
        unlisted.push(o.key);
        failures.push({
          kind: 'unlisted',
          object: o.key,
          message: `${o.key} is not listed in any digest: an extra or foreign file`,
        });
      } else if (!isNew(o.modifiedAt)) {
        if (o.modifiedAt === undefined || o.modifiedAt <= since) older++;
      } else if (listed.has(o.key)) {
        accounted++;
      } else {
        unlisted.push(o.key);
        failures.push({
          kind: 'unlisted',
          object: o.key,
          message: `${o.key} was written since the last check, but no digest since lists it: planted, or a published file replaced`,
        });
      }
    }
  }
  if (older < progress.objects) {
    failures.push({
      kind: 'missing-file',
      message: `${progress.objects - older} object(s) present at the last check (written before ${progress.boundary}) are gone; the rotation names them, a full verify names them now`,
    });
  } else if (older > progress.objects) {
    failures.push({
      kind: 'unlisted',
      message: `${older - progress.objects} object(s) dated before the last check (${progress.boundary}) were not there then: copied in with an old date`,
    });
  }
  return { failures, boundary: until.toISOString(), objects: older + accounted, unlisted };
}

/** What a week's rotation checked: digests `from` to `to`, their files (by checksum or read) and where it goes next. */
export interface RotationSlice {
  from: number;
  to: number;
  files: number;
  byChecksum: number;
  read: number;
  next: VerifyProgress['rotation'];
}

/**
 * The rotation: digests `[nextSeq, …]` up to the last verified head, sized so that what is left is done
 * by the end of the period; their links and signatures, and their files against the store. A rotation that
 * is done starts again from digest 1 on the next week.
 */
async function rotate(
  objects: ObjectStore,
  progress: VerifyProgress,
  publicKey: Pick<DigestChain, 'publicKey' | 'publicKeyError'>,
  now: Date,
  periodWeeks: number,
): Promise<{ failures: VerifyFailure[] } & RotationSlice> {
  const target = progress.head.seq;
  let { startedAt, nextSeq } = progress.rotation;
  // Done, or its period is over (what was left went in its last week): a new rotation from digest 1.
  if (nextSeq > target || now.getTime() - Date.parse(startedAt) >= periodWeeks * WEEK_MS) {
    startedAt = now.toISOString();
    nextSeq = 1;
  }
  const elapsed = Math.floor((now.getTime() - Date.parse(startedAt)) / WEEK_MS);
  const weeksLeft = Math.max(1, periodWeeks - elapsed);
  const count = Math.ceil((target - nextSeq + 1) / weeksLeft);
  const to = nextSeq + count - 1;
  // The digest before the slice too, so that the slice's first link is checked.
  const from = Math.max(1, nextSeq - 1);
  const entries = await readChainRange(objects, from, to);
  const inSlice = (object: string | undefined) => (digestKeys.seqOf(object ?? '') ?? 0) >= nextSeq;
  const failures = checkChain({ entries, strays: [], ...publicKey }, { from }).filter((f) =>
    inSlice(f.object),
  );
  const files = entries
    .filter((e) => e.seq >= nextSeq)
    .flatMap((e) => (e.digest?.files ?? []).map((file: DigestFile) => ({ file, digest: e.key })));
  const stored = await checkStoredFiles(objects, files);
  failures.push(...stored.failures);
  return {
    failures,
    from: nextSeq,
    to,
    files: files.length,
    byChecksum: stored.byChecksum,
    read: stored.read,
    next: { startedAt, nextSeq: to + 1, periodWeeks },
  };
}
