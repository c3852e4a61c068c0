/**
 * Snapshot Lambda entry point: wiring only (see `createSnapshotHandler`). Built once per container.
 */

import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { committerRowSink } from '../../lib/archive/active/committerRowSink.ts';
import { rebuildActiveFromArchive } from '../../lib/archive/active/rebuildActiveFromArchive.ts';
import { PartitionCommitter } from '../../lib/archive/commit/partitionCommitter.ts';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { tokenKeyFromSecret } from '../../lib/archive/keys/tokenKeyFromSecret.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import { objectStoreFromUrl } from '../../lib/archive/store/objectStoreFromUrl.ts';
import { createTunnelApiClient } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { systemClock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { apiKeyFromSecret } from '../shared/apiKeyFromSecret.ts';
import { s3ClientConfig, tableFromStateUrl, withHostPlugins } from '../shared/awsClients.ts';
import { loggerPort } from '../shared/loggerPort.ts';
import { liveAlertsFor } from './liveAlertsFor.ts';
import { createSnapshotHandler } from './snapshotHandler.ts';
import { snapshotSettings } from './snapshotSettings.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from './snapshotTelemetry.ts';

const SECRET_MAX_AGE_S = 300;

const logger = new Logger({ serviceName: SERVICE_NAME });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
const config = loadConfig({ env: process.env });
const settings = snapshotSettings(config);
logger.setLogLevel(config.logLevel.toUpperCase() as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR');

const table = tableFromStateUrl(config.state);
if (table === undefined)
  throw new ArchiverError('CONFIG_INVALID', 'ARCHIVE_STATE must be dynamodb://table in Lambda');
const log = loggerPort(logger);

const secrets = new SecretsProvider({
  awsSdkV3Client: withHostPlugins(new SecretsManagerClient({})),
});

async function secret(id: string): Promise<string | Uint8Array | undefined> {
  try {
    return await secrets.get(id, { maxAge: SECRET_MAX_AGE_S });
  } catch (error) {
    throw new ArchiverError('CONFIG_INVALID', `Could not read secret '${id}': ${(error as Error).message}`, {
      cause: error,
    });
  }
}

const objects = objectStoreFromUrl(config.dest, {
  s3Client: withHostPlugins(new S3Client(s3ClientConfig(process.env))),
});

const dynamo = withHostPlugins(new DynamoDBClient({}));
const state = createDynamoStateStore({ client: dynamo, table });

// The live detection rules, when the stack gives a findings topic (functions/shared/liveAlerts.ts).
const topic = process.env.FINDINGS_TOPIC_ARN;
const live =
  topic === undefined || topic === ''
    ? undefined
    : await liveAlertsFor(dynamo, table, { objects, state }, topic, metrics, log);

const snapshot = createSnapshotHandler({
  config,
  settings,
  state,
  // The archiver's exactly-once committer (manifests, digests); it needs no lease: manifest writes are conditional.
  commitRows: (dt, rows, batch) =>
    committerRowSink(
      new PartitionCommitter({
        objects,
        state,
        clock: systemClock,
        logger: log,
        runId: `snap-${randomUUID().slice(0, 8)}`,
        fence: 0,
        tmpDir: join(tmpdir(), 'tunnel-archiver-snapshot'),
      }),
    )(dt, rows, batch),
  rebuildFromArchive: () => rebuildActiveFromArchive(objects),
  ...(live === undefined ? {} : { afterSnapshot: live }),
  clock: systemClock,
  logger: log,
  metrics,
  getApiKey: async () => {
    if (config.apiKey !== undefined) return config.apiKey;
    const id = config.apiKeySecretId;
    if (id === undefined)
      throw new ArchiverError('CONFIG_INVALID', 'Set TUNNEL_API_KEY_SECRET_ID for the Lambda');
    return apiKeyFromSecret(await secret(id), id);
  },
  // The token HMAC key: the lead points this at the archiver's key source (ArchiveDeps.tokenKey).
  getTokenKey: async () => {
    const id = config.tokenKeySecretId;
    if (id === undefined) {
      throw new ArchiverError('CONFIG_INVALID', 'Set TOKEN_KEY_SECRET_ID (the token HMAC key secret)');
    }
    return tokenKeyFromSecret(await secret(id), id);
  },
  createApi: (apiKey) => createTunnelApiClient({ baseUrl: config.baseUrl, apiKey, logger: log }),
});

export const handler = async (event: unknown, context: Context) => {
  logger.addContext(context);
  return snapshot(event);
};
