import { hostname } from 'node:os';
import { PROCESS_INCARNATION } from '../../foundation/index.ts';

/**
 * `<runId>@<host>:<pid>:<incarnation>`: the pid is for people reading the state; the incarnation names
 * this process's liveness lock, which is how a later run on the same host tells a dead holder from a
 * live one (see `holdProcessLiveness`).
 */
export function leaseOwner(runId: string): string {
  return `${runId}@${hostname()}:${process.pid}:${PROCESS_INCARNATION}`;
}
