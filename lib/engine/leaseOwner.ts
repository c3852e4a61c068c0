import { hostname } from 'node:os';
import type { Lease } from '../state/stateStore.ts';
import { isProcessAlive } from './runTmpDir.ts';

const OWNER = /^(.+)@(.+):(\d+)$/;

/** `<runId>@<host>:<pid>`: lets a later run on the same host tell a dead holder from a live one. */
export function leaseOwner(runId: string): string {
  return `${runId}@${hostname()}:${process.pid}`;
}

/**
 * Whether a lease holder is certainly dead: it ran on this host, and its process no longer exists. A crashed
 * local run then does not block the next one until its lease expires. Holders on other hosts (or in this
 * very process) are never judged dead.
 */
export function isDeadLocalHolder(holder: Lease): boolean {
  const m = OWNER.exec(holder.owner);
  if (!m) return false;
  const pid = Number(m[3]);
  return m[2] === hostname() && pid !== process.pid && !isProcessAlive(pid);
}
