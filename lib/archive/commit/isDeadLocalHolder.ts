import { hostname } from 'node:os';
import { isIncarnationDead, PROCESS_INCARNATION } from '../../foundation/index.ts';
import type { Lease } from '../state/lease.ts';

/** `<runId>@<host>:<pid>:<incarnation>`, as `leaseOwner` names a holder. */
const OWNER = /^(.+)@(.+):(\d+):([0-9a-f-]{36})$/;

/**
 * Whether a lease holder is certainly dead: it ran on this host, and the kernel no longer holds its
 * process's liveness lock (the process is gone, even if its pid is still listed or reused). A crashed
 * local run then does not block the next one until its lease expires. Holders on other hosts, in this
 * very process, or without a liveness lock are never judged dead: their lease expires instead.
 */
export async function isDeadLocalHolder(holder: Lease): Promise<boolean> {
  const m = OWNER.exec(holder.owner);
  if (!m) return false;
  const incarnation = m[4] as string;
  if (m[2] !== hostname() || incarnation === PROCESS_INCARNATION) return false;
  return isIncarnationDead(incarnation);
}
