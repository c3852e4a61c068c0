import { endQuietlyWhenClosed } from './endQuietlyWhenClosed.ts';
import type { SecretInput } from './readSecretLine.ts';

/** Where the CLI writes; injected so tests can capture it. */
export interface CliIo {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Where a secret is read from (`token-hmac`); the process's stdin when absent. */
  stdin?: SecretInput;
}

/** The process's own streams, each ending quietly when its reader goes away (see {@link endQuietlyWhenClosed}). */
export const processIo = (): CliIo => ({
  stdout: { write: endQuietlyWhenClosed(process.stdout), isTTY: process.stdout.isTTY },
  stderr: { write: endQuietlyWhenClosed(process.stderr), isTTY: process.stderr.isTTY },
  env: process.env,
});
