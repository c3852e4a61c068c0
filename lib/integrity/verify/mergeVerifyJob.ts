import {
  archiveKeys,
  digestKeys,
  mapJobObjects,
  type ObjectStore,
  readChainRange,
} from '../../archive/index.ts';
import { ArchiverError, type Clock, mapLimit } from '../../foundation/index.ts';
import {
  type VerifyJobResult,
  verifyJobItemResultSchema,
  verifyJobItemSchema,
  verifyJobKeys,
  verifyJobPlanSchema,
  verifyJobResultSchema,
} from './verifyJobTypes.ts';

/**
 * Merges a job's item results into one: every failure of every item (the chain's included), with the
 * totals; an object unlisted up to the planned head but listed by a digest written since (a run published
 * it during the job) is counted as `listedSince`, not failed; one written after the newest digest (a snapshot
 * between two runs) is set aside as `awaitingDigest`, for the next check. It is stored under the job and as the archive's last full verify (`reports/full-verify.json`).
 * An item without a result is an error (the job is not finished: start it again to resume it).
 */
export async function mergeVerifyJob(
  deps: { objects: ObjectStore; clock: Clock },
  jobId: string,
): Promise<VerifyJobResult> {
  const { objects } = deps;
  const plan = await mapJobObjects.read(objects, verifyJobKeys.plan(jobId), verifyJobPlanSchema);
  if (!plan) throw new ArchiverError('NOT_FOUND', `verify job ${jobId} has no plan`);
  const items = await mapJobObjects.items(objects, plan.itemsKey, verifyJobItemSchema);
  const results = await mapJobObjects.outcomes(
    objects,
    items,
    (item) => verifyJobKeys.itemResult(jobId, item.id),
    verifyJobItemResultSchema,
  );
  const missing = items.filter((_, i) => results[i] === undefined).map((i) => i.id);
  if (missing.length > 0) {
    throw new ArchiverError(
      'INTERNAL',
      `verify job ${jobId} is not finished: ${missing.length} item(s) have no result (${missing.slice(0, 5).join(', ')}…); start it again to resume`,
    );
  }
  const done = results.filter((r) => r !== undefined);
  const sum = (f: (r: (typeof done)[number]) => number) => done.reduce((a, r) => a + f(r), 0);
  // Runs go on during a job: a file a run published after the plan is unlisted up to the planned head, and
  // listed by a digest written since. It is not a failure here; the next check reads it against that digest.
  const later = await readChainRange(objects, (plan.head?.seq ?? 0) + 1);
  const since = new Set(later.flatMap((e) => (e.digest?.files ?? []).map((f) => f.key)));
  const all = done.flatMap((r) => r.failures);
  const unlistedSince = all.filter(
    (f) => !(f.kind === 'unlisted' && f.object !== undefined && since.has(f.object)),
  );
  // A file published after the newest digest (a snapshot between two runs) waits for the next run's digest,
  // as in the weekly verify: set aside, and judged by the next check against the digests written since.
  const newest = later.at(-1)?.key ?? (plan.head ? digestKeys.digest(plan.head.seq) : undefined);
  const digestedUntil = newest === undefined ? undefined : (await objects.head(newest))?.modifiedAt;
  const awaiting = new Set<string>();
  if (digestedUntil !== undefined) {
    const unlisted = unlistedSince.flatMap((f) => (f.kind === 'unlisted' && f.object ? [f.object] : []));
    await mapLimit(unlisted, 16, async (key) => {
      const at = (await objects.head(key))?.modifiedAt;
      if (at !== undefined && at > digestedUntil) awaiting.add(key);
    });
  }
  const failures = unlistedSince.filter(
    (f) => !(f.kind === 'unlisted' && f.object !== undefined && awaiting.has(f.object)),
  );
  const result: VerifyJobResult = {
    jobId,
    ok: failures.length === 0,
    plannedAt: plan.plannedAt,
    checkedAt: deps.clock.now().toISOString(),
    head: plan.head,
    items: items.length,
    listedSince: all.length - unlistedSince.length,
    awaitingDigest: [...awaiting].sort(),
    digests: sum((r) => r.digests ?? 0),
    files: sum((r) => r.files),
    rows: sum((r) => r.rows),
    // Ids are distinct per partition (an id fixes its day), so the folders' counts add up.
    records: sum((r) => r.records),
    failures,
  };
  await mapJobObjects.write(objects, verifyJobKeys.result(jobId), result);
  await mapJobObjects.write(objects, archiveKeys.lastFullVerify, result);
  return result;
}

/** The last full verify job's merged result, or `undefined` when none is stored (or what is there is not one). */
export async function readLastFullVerify(objects: ObjectStore): Promise<VerifyJobResult | undefined> {
  try {
    return await mapJobObjects.read(objects, archiveKeys.lastFullVerify, verifyJobResultSchema);
  } catch {
    return undefined;
  }
}
