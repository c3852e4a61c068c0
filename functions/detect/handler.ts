import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
/**
 * Detect Lambda entry point: wiring only (see `createDetectHandler`). Built once per container.
 */

import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { AthenaClient } from '@aws-sdk/client-athena';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { commitFindings } from '../../lib/analytics/detect/findingsDataset.ts';
import { versionedFindingLedger } from '../../lib/analytics/detect/versionedFindingLedger.ts';
import { PartitionCommitter } from '../../lib/archive/commit/partitionCommitter.ts';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { createDynamoStateStore } from '../../lib/archive/state/dynamoStateStore.ts';
import { dynamoVersionedItems } from '../../lib/archive/state/dynamoVersionedItems.ts';
import { objectStoreFromUrl } from '../../lib/archive/store/objectStoreFromUrl.ts';
import { systemClock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { s3ClientConfig, tableFromStateUrl, withHostPlugins } from '../shared/awsClients.ts';
import { powertoolsFindingCounter, snsPublisher } from '../shared/awsFindingSinks.ts';
import { DETECT_SERVICE, METRICS_NAMESPACE } from '../shared/detectTelemetry.ts';
import { eventBridgeFindingEvents, sdkPutEvents } from '../shared/eventBridgeFindingEvents.ts';
import { lambdaDetections } from '../shared/lambdaDetections.ts';
import { loggerPort } from '../shared/loggerPort.ts';
import { athenaRuleEngine } from './athenaRuleEngine.ts';
import { createDetectHandler } from './detectHandler.ts';

const logger = new Logger({ serviceName: DETECT_SERVICE });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: DETECT_SERVICE });
const config = loadConfig({ env: process.env });
const table = tableFromStateUrl(config.state);
const { workgroup: WORKGROUP, database: DATABASE, findingsTopicArn: FINDINGS_TOPIC_ARN } = config;
if (table === undefined || !WORKGROUP || !DATABASE || !FINDINGS_TOPIC_ARN)
  throw new ArchiverError(
    'CONFIG_INVALID',
    'Set ARCHIVE_STATE (dynamodb://), WORKGROUP, DATABASE and FINDINGS_TOPIC_ARN',
  );
const log = loggerPort(logger);
const { rules, overrides } = await lambdaDetections(process.env, import.meta.url);
const dynamo = withHostPlugins(new DynamoDBClient({}));
const sns = withHostPlugins(new SNSClient({}));
const objects = objectStoreFromUrl(config.dest, {
  s3Client: withHostPlugins(new S3Client(s3ClientConfig(process.env))),
});
const state = createDynamoStateStore({ client: dynamo, table });

let runId = '';
const detect = createDetectHandler({
  rules,
  overrides,
  engine: athenaRuleEngine(withHostPlugins(new AthenaClient({})), {
    workGroup: WORKGROUP,
    database: DATABASE,
    sleep: (ms) => sleep(ms),
  }),
  ledger: (owner) => versionedFindingLedger(dynamoVersionedItems({ client: dynamo, table }), owner),
  // Through the archiver's committer: staged, listed in a manifest, published; the next archiver run digests them.
  commitFindings: (findings) =>
    commitFindings(
      new PartitionCommitter({
        objects,
        state,
        clock: systemClock,
        logger: log,
        runId,
        fence: 0,
        tmpDir: join(tmpdir(), 'tunnel-archiver-detect'),
      }),
      findings,
    ),
  publish: snsPublisher(sns, FINDINGS_TOPIC_ARN),
  events: eventBridgeFindingEvents(
    sdkPutEvents(withHostPlugins(new EventBridgeClient({ region: await sns.config.region() }))),
  ),
  countFindings: powertoolsFindingCounter(metrics),
  metrics,
  clock: systemClock,
  logger: log,
  tickMs: config.scheduleMinutes * 60_000,
  runId: () => {
    runId = `detect-${randomUUID().slice(0, 8)}`;
    return runId;
  },
});

export const handler = async (event: unknown, context: Context) => {
  logger.addContext(context);
  return detect(event);
};
