import { digestKeys, mapJobObjects, type ObjectStore, readDigestChain } from '../../archive/index.ts';
import { type Clock, mapLimit } from '../../foundation/index.ts';
import { type ListedFile, listedFiles } from './checkFiles.ts';
import {
  type VerifyJobItem,
  type VerifyJobPlan,
  verifyJobKeys,
  verifyJobPlanSchema,
} from './verifyJobTypes.ts';

/** Listings written at once by the plan (one small object a folder). */
const LISTING_WRITE_CONCURRENCY = 16;

/** The folder of a key (up to its last `/`): a job's unit of work, a partition of a listed prefix. */
export function folderOf(key: string): string {
  return key.slice(0, key.lastIndexOf('/') + 1);
}

/**
 * Plans a full verify job once: the chain as it is now (its head), every folder that holds a listed file or
 * any object, one item a folder plus one for the chain, and for each folder the files the digests list in it. A job planned already keeps its plan
 * (a job started again resumes the same work). The plan is written last: present means complete.
 */
export async function planVerifyJob(
  deps: { objects: ObjectStore; clock: Clock },
  jobId: string,
): Promise<VerifyJobPlan> {
  const { objects } = deps;
  const planned = await mapJobObjects.read(objects, verifyJobKeys.plan(jobId), verifyJobPlanSchema);
  if (planned) return planned;
  const plannedAt = deps.clock.now();
  const chain = await readDigestChain(objects);
  const newest = chain.entries.at(-1);
  const folders = new Map<string, ListedFile[]>();
  for (const listed of listedFiles(chain).listed.values()) {
    const folder = folderOf(listed.file.key);
    const files = folders.get(folder) ?? [];
    files.push(listed);
    folders.set(folder, files);
  }
  for (const prefix of digestKeys.listedPrefixes) {
    for await (const o of objects.list(prefix)) {
      const folder = folderOf(o.key);
      if (!folders.has(folder)) folders.set(folder, []);
    }
  }
  const parts = [...folders.keys()].sort().map((folder, n) => ({
    id: `p${String(n).padStart(6, '0')}`,
    kind: 'files' as const,
    folder,
  }));
  await mapLimit(parts, LISTING_WRITE_CONCURRENCY, (item) =>
    mapJobObjects.write(objects, verifyJobKeys.listing(jobId, item.id), folders.get(item.folder)),
  );
  const items: VerifyJobItem[] = [{ id: 'chain', kind: 'chain' }, ...parts];
  const itemsKey = verifyJobKeys.items(jobId);
  await mapJobObjects.write(objects, itemsKey, items);
  const plan: VerifyJobPlan = {
    jobId,
    plannedAt: plannedAt.toISOString(),
    head: newest ? { seq: newest.seq, key: newest.key, sha256: newest.sha256 } : null,
    items: items.length,
    itemsKey,
  };
  // Two starts of one job race only here: the first plan written is the job's.
  if (!(await objects.putIfAbsent(verifyJobKeys.plan(jobId), JSON.stringify(plan)))) {
    return (await mapJobObjects.read(objects, verifyJobKeys.plan(jobId), verifyJobPlanSchema)) ?? plan;
  }
  return plan;
}
