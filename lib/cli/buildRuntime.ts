import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../clock/clock.ts';
import type { Config } from '../config/loadConfig.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import type { Logger } from '../log/logger.ts';
import { createDynamoStateStore, ensureStateTable } from '../state/dynamoStateStore.ts';
import { startLocalDynamo } from '../state/localDynamo.ts';
import type { StateStore } from '../state/stateStore.ts';
import { stateStoreFromUrl } from '../state/stateStoreFromUrl.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { objectStoreFromUrl } from '../store/objectStoreFromUrl.ts';
import { createTunnelApiClient, type TunnelApiClient } from '../upstream/createTunnelApiClient.ts';

export const LOCAL_STATE_TABLE = 'tunnel-archiver-state';

export interface Runtime {
  api: TunnelApiClient;
  objects: ObjectStore;
  state: StateStore;
  /** Where local state lives, when it is the embedded server. */
  localStateDir?: string;
  close(): Promise<void>;
}

/** The API client alone: built first, so a bad key is found before any store is touched. */
export function buildApi(config: Config, apiKey: string, clock: Clock, logger: Logger): TunnelApiClient {
  return createTunnelApiClient({ baseUrl: config.baseUrl, apiKey, clock, logger });
}

/** Local directory of a `file://` destination, or undefined for S3. */
export function localDestDir(dest: string): string | undefined {
  if (!dest.startsWith('file://')) return undefined;
  const rest = dest.slice('file://'.length);
  return rest.startsWith('/') ? fileURLToPath(`file://${rest}`) : resolve(rest);
}

/**
 * Object store and state store from config. With a `file://` destination and no `ARCHIVE_STATE`,
 * state lives in an embedded DynamoDB-compatible server persisted in `<dest>/.state`, so local mode
 * runs the same state code as AWS.
 */
export async function buildStores(config: Config, logger: Logger): Promise<Omit<Runtime, 'api'>> {
  const objects = objectStoreFromUrl(config.dest);
  if (config.state) {
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
  const dir = localDestDir(config.dest);
  if (!dir) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      'ARCHIVE_STATE (dynamodb://table) is required when ARCHIVE_DEST is s3://',
    );
  }
  const localStateDir = resolve(dir, '.state');
  let local: Awaited<ReturnType<typeof startLocalDynamo>>;
  try {
    local = await startLocalDynamo({ dir: localStateDir });
  } catch (cause) {
    throw new ArchiverError(
      'LEASE_HELD',
      `Cannot open the local state in ${localStateDir}: is another run using this folder?`,
      { cause },
    );
  }
  const client = new DynamoDBClient({
    endpoint: local.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureStateTable(client, LOCAL_STATE_TABLE);
  const state = createDynamoStateStore({ client, table: LOCAL_STATE_TABLE });
  logger.debug('local state store started', { endpoint: local.endpoint, dir: localStateDir });
  return {
    objects,
    state,
    localStateDir,
    close: async () => {
      client.destroy();
      await local.close();
      await objects.close?.();
    },
  };
}
