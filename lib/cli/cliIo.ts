import type { ObjectStore, StateStore, UpstreamApi } from '../archive/index.ts';
import { endQuietlyWhenClosed } from './endQuietlyWhenClosed.ts';
import type { SecretInput } from './readSecretLine.ts';

/** Where the CLI writes; injected so tests can capture it. */
export interface CliIo {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Where a secret is read from (`token-hmac`); the process's stdin when absent. */
  stdin?: SecretInput;
  /**
   * A hook over a run's ports before the run uses them (the ports themselves when absent): how a process
   * that embeds the CLI's main observes or wraps what a run talks to. The CLI's own entry never sets it.
   */
  wrapRunPorts?: (ports: RunPorts) => RunPorts;
}

/** What an archiving run talks to: the upstream API, the object store and the state store. */
export interface RunPorts {
  api: UpstreamApi;
  objects: ObjectStore;
  state: StateStore;
}

/** The process's own streams, each ending quietly when its reader goes away (see {@link endQuietlyWhenClosed}). */
export const processIo = (): CliIo => ({
  stdout: { write: endQuietlyWhenClosed(process.stdout), isTTY: process.stdout.isTTY },
  stderr: { write: endQuietlyWhenClosed(process.stderr), isTTY: process.stderr.isTTY },
  env: process.env,
});
