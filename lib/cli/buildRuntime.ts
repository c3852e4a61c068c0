import { resolve } from 'node:path';
import { type FindingLedger, versionedFindingLedger } from '../analytics/index.ts';
import {
  type Config,
  type ConfigHomeEnv,
  createFileObjectStore,
  createTunnelApiClient,
  type DigestSigner,
  keysInArchiveWarning,
  type LocalKeysLocation,
  loadLocalKeys,
  locateLocalKeys,
  type ObjectStore,
  openLocalState,
  type StateStore,
  type TunnelApiClient,
} from '../archive/index.ts';
import { ArchiverError, type Clock, type Logger, parseDestUrl } from '../foundation/index.ts';

export interface Runtime {
  api: TunnelApiClient;
  objects: ObjectStore;
  state: StateStore;
  /** Where local state lives (the state folder of a `file://` destination). */
  localStateDir?: string;
  /** Claims of detection findings among the local state's items (local state only). */
  findingLedger?: (owner: string) => FindingLedger;
  close(): Promise<void>;
}

/** The API client alone: built first, so a bad key is found before any store is touched. */
export function buildApi(config: Config, apiKey: string, clock: Clock, logger: Logger): TunnelApiClient {
  return createTunnelApiClient({ baseUrl: config.baseUrl, apiKey, clock, logger });
}

/** Local directory of a `file://` destination (decoded once, by `parseDestUrl`), or undefined for S3. */
export function localDestDir(dest: string): string | undefined {
  const parsed = parseDestUrl(dest);
  return parsed.kind === 'file' ? parsed.dir : undefined;
}

/**
 * The CLI's keys folder: ARCHIVE_KEYS_DIR; else, for a local destination, an existing `<dest>/.keys`
 * (an archive made before the per-user default) or the per-user folder (`locateLocalKeys`). Only
 * `<dest>/.keys` is looked for on disk.
 */
export function keysLocationOf(config: Config, env: ConfigHomeEnv): LocalKeysLocation {
  const dir = localDestDir(config.dest);
  if (dir === undefined) {
    if (config.keysDir) return { dir: resolve(config.keysDir), source: 'keys-dir' };
    throw new ArchiverError(
      'CONFIG_INVALID',
      `ARCHIVE_KEYS_DIR (--keys-dir) is required when ARCHIVE_DEST is s3:// (got '${config.dest}'): the folder of the archive's token and signing keys`,
    );
  }
  return locateLocalKeys(dir, config.keysDir, env);
}

/** The folder of {@link keysLocationOf}. */
export function keysDirOf(config: Config, env: ConfigHomeEnv): string {
  return keysLocationOf(config, env).dir;
}

/**
 * The archive's keys for a CLI run (created on the first run; see `checkArchiveKeys` for a lost folder).
 * Keys read from inside the archive, and key files others could read, are warned about.
 */
export async function loadCliKeys(
  config: Config,
  env: ConfigHomeEnv,
  logger: Pick<Logger, 'warn'>,
): Promise<{ tokenKey: Uint8Array; signer: DigestSigner }> {
  const location = keysLocationOf(config, env);
  const dest = localDestDir(config.dest);
  if (location.source === 'archive' && dest !== undefined) logger.warn(keysInArchiveWarning(dest, env));
  return loadLocalKeys(location.dir, { warn: (message) => logger.warn(message) });
}

/** Where the state of a local destination lives. */
export function localStateDirOf(dir: string): string {
  return resolve(dir, '.state');
}

/**
 * Object store and state store from config. With a `file://` destination and no `ARCHIVE_STATE`,
 * state lives in item files under `<dest>/.state` (`openLocalState`): the same state concerns as on
 * DynamoDB, on the versioned-item primitive of a folder, so local mode starts no server and loads no
 * SDK. The AWS SDK is loaded (dynamic import) only when a store needs it: S3 or DynamoDB.
 * `createStateTable`: a missing DynamoDB state table is created first (`ensureStateTable`).
 */
export async function buildStores(
  config: Config,
  logger: Logger,
  options: { createStateTable?: boolean } = {},
): Promise<Omit<Runtime, 'api'>> {
  if (config.state && options.createStateTable) {
    // A command that writes state (run, start, recover) creates a missing table first; readers never do.
    const { ensureStateTableAt } = await import('../archive/adapters.ts');
    await ensureStateTableAt(config.state, logger);
  }
  const dest = parseDestUrl(config.dest);
  const objects =
    dest.kind === 'file'
      ? createFileObjectStore(dest.dir)
      : (await import('../archive/adapters.ts')).objectStoreFromUrl(config.dest);
  if (config.state) {
    const { stateStoreFromUrl } = await import('../archive/adapters.ts');
    const state = stateStoreFromUrl(config.state);
    return {
      objects,
      state,
      close: async () => {
        await state.close?.();
        await objects.close?.();
      },
    };
  }
  if (dest.kind !== 'file') {
    // loadConfig already refuses this; kept so a hand-built Config cannot reach the network.
    throw new ArchiverError(
      'CONFIG_INVALID',
      'ARCHIVE_STATE (dynamodb://TABLE) is required when ARCHIVE_DEST is s3://',
    );
  }
  const localStateDir = localStateDirOf(dest.dir);
  let local: Awaited<ReturnType<typeof openLocalState>>;
  try {
    local = await openLocalState(localStateDir);
  } catch (cause) {
    // The lock's own error names the live holder; anything else keeps its cause, never "another run".
    if (cause instanceof ArchiverError) throw cause;
    throw new ArchiverError(
      'STORE_FAILED',
      `cannot open the local state in ${localStateDir}: ${(cause as Error).message}`,
      { cause, retryable: false },
    );
  }
  const { state } = local;
  logger.debug('local state opened', { dir: localStateDir });
  return {
    objects,
    state,
    localStateDir,
    findingLedger: (owner) => versionedFindingLedger(local.items, owner),
    close: async () => {
      await local.close();
      await objects.close?.();
    },
  };
}
