import type { ChainHead } from '../digest/digestState.ts';
import type { ArchiveMeta } from './archiveMeta.ts';
import { chainHeadAfter } from './chainHeadAfter.ts';

/**
 * The reconciled head META records after a reconciliation wrote `digest`: like the chain head it only
 * moves forward (`chainHeadAfter`), so a slower reconciliation never makes the next one re-read a stretch
 * of the chain, or trust one, that a newer reconciliation did not cover.
 */
export function reconciledHeadAfter(
  meta: Pick<ArchiveMeta, 'reconciledHead'>,
  digest: { seq: number; key: string; sha256: string; createdAt: string } | undefined,
): ChainHead | undefined {
  return chainHeadAfter({ ...(meta.reconciledHead ? { chainHead: meta.reconciledHead } : {}) }, digest);
}
