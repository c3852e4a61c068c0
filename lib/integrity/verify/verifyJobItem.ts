import { mapJobObjects, type ObjectStore, readDigestChain } from '../../archive/index.ts';
import { ArchiverError, type Clock } from '../../foundation/index.ts';
import { checkChain } from './checkChain.ts';
import { checkListedFiles, listedFiles } from './checkFiles.ts';
import { checkHead } from './checkHead.ts';
import { folderOf } from './planVerifyJob.ts';
import {
  type VerifyJobItem,
  type VerifyJobItemResult,
  type VerifyJobPlan,
  verifyJobItemResultSchema,
  verifyJobKeys,
  verifyJobListingSchema,
} from './verifyJobTypes.ts';

/** What an item step returns to the state machine: small, whatever the item found. */
export interface VerifyJobItemOutcome {
  id: string;
  failures: number;
  /** True when an earlier run of the job had checked the item already: its stored result was kept. */
  reused: boolean;
}

/**
 * Checks one item of a job and stores its result under the job, unless a result is stored already (a job
 * started again skips what it finished). The chain item: the checks of `verify` over the chain (signatures,
 * links, no file listed twice) and that it still reaches the planned head. A folder: every object in it
 * against what the digests list there, by `checkListedFiles` (hash, rows,
 * record ids, unlisted, missing).
 */
export async function verifyJobItem(
  deps: { objects: ObjectStore; clock: Clock },
  plan: Pick<VerifyJobPlan, 'jobId' | 'head'>,
  item: VerifyJobItem,
): Promise<VerifyJobItemOutcome> {
  const { objects } = deps;
  const key = verifyJobKeys.itemResult(plan.jobId, item.id);
  const stored = await mapJobObjects.read(objects, key, verifyJobItemResultSchema);
  if (stored) return { id: item.id, failures: stored.failures.length, reused: true };
  const result =
    item.kind === 'chain' ? await chainItem(objects, plan) : await folderItem(objects, plan, item);
  const out: VerifyJobItemResult = { ...result, id: item.id, checkedAt: deps.clock.now().toISOString() };
  await mapJobObjects.write(objects, key, out);
  return { id: item.id, failures: out.failures.length, reused: false };
}

type Checked = Omit<VerifyJobItemResult, 'id' | 'checkedAt'>;

async function chainItem(objects: ObjectStore, plan: Pick<VerifyJobPlan, 'head'>): Promise<Checked> {
  const chain = await readDigestChain(objects);
  const failures = [...checkChain(chain), ...listedFiles(chain).failures];
  if (plan.head) failures.push(...checkHead(chain, { ...plan.head, source: 'the job plan' }));
  return { files: 0, rows: 0, records: 0, failures, digests: chain.entries.length };
}

async function folderItem(
  objects: ObjectStore,
  plan: Pick<VerifyJobPlan, 'jobId'>,
  item: Extract<VerifyJobItem, { kind: 'files' }>,
): Promise<Checked> {
  const listing = await mapJobObjects.read(
    objects,
    verifyJobKeys.listing(plan.jobId, item.id),
    verifyJobListingSchema,
  );
  if (!listing)
    throw new ArchiverError('INTERNAL', `the plan of job ${plan.jobId} has no listing for ${item.id}`);
  const checked = await checkListedFiles(objects, new Map(listing.map((l) => [l.file.key, l])), {
    prefixes: [item.folder],
    // Every object of the folder, whenever written: a file a run publishes meanwhile is settled by the merge.
    inScope: (o) => folderOf(o.key) === item.folder,
  });
  const { recordIds: _ids, awaitingDigest: _awaiting, ...figures } = checked;
  return figures;
}
