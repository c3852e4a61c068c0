import { randomUUID } from 'node:crypto';

/** This process's incarnation: a later process may reuse the pid (pid 1 in every container), never this. */
export const PROCESS_INCARNATION = randomUUID();

/**
 * What the kernel says of the process of an incarnation on this host: `alive` while it holds its liveness
 * lock, `dead` once nobody holds it, `unknown` when it took none. Injected where a leftover is judged: the
 * CLI passes the kernel-lock reader (`incarnationLiveness`, which loads the native `classic-level`), a
 * Lambda passes nothing (its sandbox holds no CLI's locks, and its bundle ships no native module).
 */
export type IncarnationLiveness = (incarnation: string) => Promise<'alive' | 'dead' | 'unknown'>;
