import type { ChainHead } from '../digest/digestState.ts';
import type { ArchiveMeta } from './archiveMeta.ts';

/**
 * The chain head META records once a digest is written: the new one when it is further along, else the one
 * already there. The head only moves forward, so a slower writer (a concurrent run, `detect`) never records
 * an older head over a newer one, and `verify` never mistakes a rewound head for the truth.
 */
export function chainHeadAfter(
  meta: Pick<ArchiveMeta, 'chainHead'>,
  digest: { seq: number; key: string; sha256: string; createdAt: string } | undefined,
): ChainHead | undefined {
  if (!digest || (meta.chainHead?.seq ?? 0) >= digest.seq) return meta.chainHead;
  return { seq: digest.seq, key: digest.key, sha256: digest.sha256, at: digest.createdAt };
}
