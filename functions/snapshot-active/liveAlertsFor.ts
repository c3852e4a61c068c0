import { randomUUID } from 'node:crypto';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { versionedFindingLedger } from '../../lib/detect/versionedFindingLedger.ts';
import type { Logger } from '../../lib/log/logger.ts';
import { dynamoVersionedItems } from '../../lib/state/dynamoVersionedItems.ts';
import { powertoolsFindingCounter, snsPublisher } from '../shared/awsFindingSinks.ts';
import { eventBridgeFindingEvents, sdkPutEvents } from '../shared/eventBridgeFindingEvents.ts';
import { lambdaDetections } from '../shared/lambdaDetections.ts';
import { liveAlerts } from '../shared/liveAlerts.ts';

/** The snapshot Lambda's live-rule hook, wired to the state table (the ledger), the findings topic and EventBridge. */
export async function liveAlertsFor(
  dynamo: DynamoDBClient,
  table: string,
  topicArn: string,
  metrics: Metrics,
  logger: Logger,
) {
  const { rules, overrides } = await lambdaDetections(process.env, import.meta.url);
  const sns = new SNSClient({});
  return liveAlerts({
    rules,
    overrides,
    ledger: versionedFindingLedger(
      dynamoVersionedItems({ client: dynamo, table }),
      `snap-${randomUUID().slice(0, 8)}`,
    ),
    publish: snsPublisher(sns, topicArn),
    events: eventBridgeFindingEvents(
      sdkPutEvents(new EventBridgeClient({ region: await sns.config.region() })),
    ),
    countFindings: powertoolsFindingCounter(metrics),
    logger,
  });
}
