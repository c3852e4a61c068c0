/**
 * What every archiving Lambda of the stack builds once per container: config, logger, metrics, clients,
 * stores and the key readers (the archive handler and the fan-out's steps share it; wiring only).
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { S3ControlClient } from '@aws-sdk/client-s3-control';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import type { DigestSigner } from '../../lib/archive/digest/digestSigner.ts';
import { kmsDigestSigner } from '../../lib/archive/digest/kmsDigestSigner.ts';
import { tokenKeyFromSecret } from '../../lib/archive/keys/tokenKeyFromSecret.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import { objectStoreFromUrl } from '../../lib/archive/store/objectStoreFromUrl.ts';
import { createTunnelApiClient } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { systemClock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { parseDestUrl } from '../../lib/foundation/url/storeUrl.ts';
import { createS3ChecksumJobs } from '../../lib/integrity/verify/s3ChecksumJobs.ts';
import { apiKeyFromSecret } from './apiKeyFromSecret.ts';
import type { ArchiveHandlerDeps } from './archiveHandlerDeps.ts';
import { s3ClientConfig, tableFromStateUrl, withHostPlugins } from './awsClients.ts';
import { loggerPort } from './loggerPort.ts';
import { INTEGRITY_ENV, METRICS_NAMESPACE, SERVICE_NAME } from './telemetryNames.ts';

/** Seconds a fetched key is reused: a rotated key is picked up within this time. */
const SECRET_MAX_AGE_S = 300;

export const logger = new Logger({ serviceName: SERVICE_NAME });
const log = loggerPort(logger);
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig({ env: process.env });
} catch (error) {
  logger.error('invalid configuration', { error: (error as Error).message });
  throw error;
}
logger.setLogLevel(config.logLevel.toUpperCase() as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR');

const table = tableFromStateUrl(config.state);
if (table === undefined)
  throw new ArchiverError('CONFIG_INVALID', 'ARCHIVE_STATE must be dynamodb://table in Lambda');
const secretId = config.apiKeySecretId;
if (config.apiKey === undefined && secretId === undefined) {
  throw new ArchiverError(
    'CONFIG_INVALID',
    'Set TUNNEL_API_KEY_SECRET_ID (or TUNNEL_API_KEY) for the Lambda',
  );
}

const { digestSigningKeyId: digestKeyId, tokenKeySecretId } = config;
if (!digestKeyId || !tokenKeySecretId) {
  throw new ArchiverError(
    'CONFIG_INVALID',
    `Set ${INTEGRITY_ENV.digestKeyId} (KMS signing key) and ${INTEGRITY_ENV.tokenKeySecretId} (token key secret) for the Lambda`,
  );
}

const s3Client = withHostPlugins(new S3Client(s3ClientConfig(process.env)));
const signer: DigestSigner = kmsDigestSigner({
  client: withHostPlugins(new KMSClient({})),
  keyId: digestKeyId,
});
/** Both keys' secrets, through Powertools' cache. */
const secrets = new SecretsProvider({
  awsSdkV3Client: withHostPlugins(new SecretsManagerClient({})),
});

/**
 * The token HMAC key, read once per container (cold start) and kept: it never changes, and a run must
 * not hash with two keys. A failure is not cached, so the next invocation tries again.
 */
let tokenKey: Promise<Uint8Array> | undefined;
function getTokenKey(): Promise<Uint8Array> {
  tokenKey ??= secrets
    .get(tokenKeySecretId as string)
    .then((value) => tokenKeyFromSecret(value, tokenKeySecretId as string))
    .catch((error: unknown) => {
      tokenKey = undefined;
      throw ArchiverError.is(error)
        ? error
        : new ArchiverError(
            'CONFIG_INVALID',
            `Could not read the token key from secret '${tokenKeySecretId}'`,
            {
              cause: error,
            },
          );
    });
  return tokenKey;
}
void getTokenKey().catch(() => {}); // start the read during init; errors surface on the first invocation
const dynamoClient = withHostPlugins(new DynamoDBClient({}));

/** Reads the key through Powertools' cache; a failure says which secret and never carries the value. */
async function getApiKey(): Promise<string> {
  if (config.apiKey !== undefined) return config.apiKey;
  const id = secretId as string;
  let value: string | Uint8Array | undefined;
  try {
    value = await secrets.get(id, { maxAge: SECRET_MAX_AGE_S });
  } catch (error) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `Could not read the API key from secret '${id}': ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return apiKeyFromSecret(value, id);
}

const objects = objectStoreFromUrl(config.dest, { s3Client });
const dest = parseDestUrl(config.dest);
/** The weekly verify's checksum jobs, where the stack gave S3 Batch Operations a role. */
const checksumJobs =
  config.checksumJobRoleArn && dest.kind === 's3'
    ? createS3ChecksumJobs({
        client: withHostPlugins(new S3ControlClient({})),
        accountId: config.checksumJobRoleArn.split(':')[4] as string,
        bucket: dest.bucket,
        rootPrefix: dest.prefix === '' ? '' : `${dest.prefix}/`,
        roleArn: config.checksumJobRoleArn,
        objects,
      })
    : undefined;

/** The ports and readers a handler of this stack is made of. */
export const lambdaDeps: ArchiveHandlerDeps = {
  config,
  objects,
  ...(checksumJobs ? { checksumJobs } : {}),
  state: createDynamoStateStore({ client: dynamoClient, table }),
  clock: systemClock,
  logger: log,
  metrics,
  getApiKey,
  getKeys: async () => ({ tokenKey: await getTokenKey(), signer }),
  createApi: (apiKey) => createTunnelApiClient({ baseUrl: config.baseUrl, apiKey, logger: log }),
};
