import type { AddressInfo } from 'node:net';
import path from 'node:path';
import dynalite from 'dynalite';
import { lockDir } from '../lib/archive/state/dirLock.ts';
import { ArchiverError } from '../lib/foundation/errors/archiverError.ts';

export interface LocalDynamoOptions {
  /** Folder to persist the tables in (LevelDB); omitted = in memory, gone on close. */
  dir?: string;
  /** Port on 127.0.0.1; default 0 (any free port). */
  port?: number;
}

export interface LocalDynamo {
  /** `http://127.0.0.1:<port>`, to pass as a DynamoDB client `endpoint`. */
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Runs dynalite (a DynamoDB-compatible server) inside this process: the DynamoDB stand-in of the tests
 * and the bench, for the same adapter as AWS, with no Java or Docker. Persisted in `dir` (under its
 * folder lock) or in memory. Tables become ACTIVE at once (create/delete/update delays set to 0).
 */
export async function startLocalDynamo(opts: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  const dir = opts.dir === undefined ? undefined : path.resolve(opts.dir);
  const unlock = dir === undefined ? async () => undefined : await lockDir(dir);
  const server = dynalite({
    ...(dir === undefined ? {} : { path: dir }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await unlock();
    throw new ArchiverError(
      'CONFIG_INVALID',
      `cannot start the local state store: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        // dynalite's close waits for pending LevelDB writes, then closes the database.
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }).finally(unlock);
      return closing;
    },
  };
}
