/**
 * Security Lake export Lambda: wiring only (see lib/analytics/ocsf/writeSecurityLake.ts). Built once per container.
 */

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { writeSecurityLake } from '../../lib/analytics/ocsf/writeSecurityLake.ts';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { dynamoVersionedItems } from '../../lib/archive/state/dynamoVersionedItems.ts';
import { objectStoreFromUrl } from '../../lib/archive/store/objectStoreFromUrl.ts';
import { systemClock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { s3ClientConfig, tableFromStateUrl, withHostPlugins } from '../shared/awsClients.ts';
import { lambdaDetections } from '../shared/lambdaDetections.ts';
import { loggerPort } from '../shared/loggerPort.ts';
import { assumedLakeStore } from './assumedLakeStore.ts';
import { lakeConfig, withExternalIds } from './lakeConfig.ts';

const logger = new Logger({ serviceName: 'tunnel-archiver-security-lake' });
const config = loadConfig({ env: process.env });
const secrets = withHostPlugins(new SecretsManagerClient({}));
// The provider roles' external ids, from their secrets: never in the template or the environment.
const lake = await withExternalIds(
  lakeConfig(config),
  async (secretId) => (await secrets.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString,
);
const table = tableFromStateUrl(config.state);
if (table === undefined) throw new ArchiverError('CONFIG_INVALID', 'Set ARCHIVE_STATE (dynamodb://)');
const { rules } = await lambdaDetections(process.env, import.meta.url);
const objects = objectStoreFromUrl(config.dest, {
  s3Client: withHostPlugins(new S3Client(s3ClientConfig(process.env))),
});
const items = dynamoVersionedItems({ client: withHostPlugins(new DynamoDBClient({})), table });

/** One scheduled run; a failure throws, so the function's Errors metric (and its alarm) counts it. */
export async function handler(_event: unknown, context: Context) {
  // arn:aws:lambda:<region>:<account>:function:<name>: the lake's partitions name this account and region.
  const [, , , region = '', accountId = ''] = context.invokedFunctionArn.split(':');
  const tmpDir = await mkdtemp(join(tmpdir(), 'security-lake-'));
  return writeSecurityLake(
    {
      archive: objects,
      lakeStore: async (source) => assumedLakeStore(source, { region, s3: s3ClientConfig(process.env) }),
      items,
      rules,
      clock: systemClock,
      logger: loggerPort(logger),
      tmpDir,
    },
    { ...lake, region, accountId },
  );
}
