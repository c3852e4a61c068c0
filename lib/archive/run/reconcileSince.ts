import { addDays, type Day, toDay } from '../../foundation/index.ts';
import { archiveKeys, stagedKeyInfo } from '../commit/archiveKeys.ts';
import { ORPHAN_AGE_MS } from '../commit/sweepStaging.ts';
import { windowStartOf } from '../days/planDays.ts';
import { chainHeadMatches } from '../digest/chainHeadMatches.ts';
import type { DigestFile } from '../digest/digestSchema.ts';
import type { ChainHead } from '../digest/digestState.ts';
import { readChainRange } from '../digest/readChainRange.ts';
import type { RebuildScope } from '../recover/rebuildStateFromArchive.ts';
import type { ArchiveMeta } from '../state/archiveMeta.ts';
import type { PartitionManifest } from '../state/partitionManifest.ts';
import type { ArchiveDeps } from './runTypes.ts';

/** What a weekly reconciliation works from: the chain since the last one, and the days written since. */
export interface ReconcileScope extends RebuildScope {
  /** The head the last reconciliation recorded: the chain after it is what this one reads. */
  head: ChainHead;
  /** Digests read (the recorded head and those after it). */
  digests: number;
}

/**
 * The scope of a weekly reconciliation when the last one recorded its head (META's `reconciledHead`) and
 * the state's chain head matches the archive's, the chain still holds that digest, unchanged, with unbroken links from it to the state's chain head:
 * the files the digests since list, and the first day a file written since can be in (the window at the
 * last reconciliation, two days of margin). Its cost follows the chain and the days since, not the
 * archive's age. Undefined (a full reconciliation) without a recorded head, or when the chain since it
 * is not whole: a reconciliation then reads everything, as the first one does.
 */
export async function reconcileSince(
  deps: Pick<ArchiveDeps, 'objects'>,
  meta: ArchiveMeta | undefined,
  today: Day,
  windowDays: number,
): Promise<ReconcileScope | undefined> {
  const head = meta?.reconciledHead;
  const chainHead = meta?.chainHead;
  if (!meta || !head || !chainHead || meta.reconciledAt === undefined || chainHead.seq < head.seq)
    return undefined;
  if (!(await chainHeadMatches(deps.objects, chainHead))) return undefined;
  const segment = await readChainRange(deps.objects, head.seq, chainHead.seq);
  if (segment.length !== chainHead.seq - head.seq + 1 || segment[0]?.sha256 !== head.sha256) return undefined;
  const digested = new Map<string, { file: DigestFile; createdAt: string }>();
  for (const [i, e] of segment.entries()) {
    const before = segment[i - 1];
    if (!e.digest || (before && e.digest.previous?.sha256 !== before.sha256)) return undefined;
    for (const file of e.digest.files) digested.set(file.key, { file, createdAt: e.digest.createdAt });
  }
  const last = windowStartOf(toDay(new Date(meta.reconciledAt)), windowDays);
  const from = [meta.firstWindowStart, addDays(last, -2)].sort().at(-1) as Day;
  return { head, from, today, digested, digests: segment.length };
}

/**
 * `sweepStaging` within `scope`: an old staged file of a partition from `scope.from` that its manifest
 * does not list is deleted; one of an older partition, or of a shape not known, is left (never a listed
 * file, so nothing committed can be removed).
 */
export async function sweepInScope(deps: ArchiveDeps, scope: ReconcileScope, now: Date): Promise<number> {
  const manifests = new Map<string, PartitionManifest | undefined>();
  let removed = 0;
  for await (const o of deps.objects.list(archiveKeys.stagingPrefix)) {
    const staged = stagedKeyInfo(o.key);
    const at = archiveKeys.stampedAt(o.key);
    if (!staged || !at || now.getTime() - at.getTime() < ORPHAN_AGE_MS) continue;
    const { dataset } = staged;
    const dt = staged.dt as Day;
    if (dt < scope.from || dt > scope.today) continue;
    const where = `${dataset}/${dt}`;
    if (!manifests.has(where)) manifests.set(where, await deps.state.getPartition(dt, dataset));
    if (manifests.get(where)?.files.some((f) => f.stagingKey === o.key)) continue;
    await deps.objects.deleteStaging(o.key);
    removed++;
  }
  if (removed > 0) deps.logger.info('removed orphaned staged files', { removed });
  return removed;
}
