import { chainHeadMatches } from '../digest/chainHeadMatches.ts';
import type { ArchiveMeta } from '../state/archiveMeta.ts';
import type { ArchiveDeps } from './runTypes.ts';

/** Reconciliations with the whole archive happen at least this often (and whenever the state is off). */
export const RECONCILE_EVERY_MS = 7 * 86_400_000;

/**
 * Whether this run must reconcile the state with the whole archive (publish from every manifest,
 * rebuild the state from the listing, sweep staging, digest from the listing and the whole chain): when
 * there is no state yet, when the state's chain head does not match the archive's, or when the last
 * reconciliation is a week old. Otherwise the run reads only what it touches and what it noted.
 */
export async function reconcileDue(
  deps: ArchiveDeps,
  meta: ArchiveMeta | undefined,
  now: Date,
): Promise<boolean> {
  const last = meta?.reconciledAt === undefined ? Number.NaN : Date.parse(meta.reconciledAt);
  const why =
    meta === undefined
      ? 'no state yet'
      : !(now.getTime() - last < RECONCILE_EVERY_MS)
        ? 'last reconciliation is a week old or more'
        : !(await chainHeadMatches(deps.objects, meta.chainHead))
          ? "the state's chain head does not match the archive's"
          : undefined;
  if (why !== undefined) deps.logger.info('reconciling the state with the whole archive', { why });
  return why !== undefined;
}
