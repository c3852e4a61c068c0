import { randomUUID } from 'node:crypto';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { dynamoFindingLedger } from '../../lib/detect/dynamoFindingLedger.ts';
import { withCallLog } from '../archive-history/awsClients.ts';
import { powertoolsFindingCounter, snsPublisher } from '../detect/awsFindingSinks.ts';
import { lambdaDetections } from '../detect/lambdaDetections.ts';
import { liveAlerts } from '../detect/liveAlerts.ts';

/** The snapshot Lambda's live-rule hook, wired to the state table (claims) and the findings topic. */
export async function liveAlertsFor(
  dynamo: DynamoDBClient,
  table: string,
  topicArn: string,
  metrics: Metrics,
) {
  const { rules, overrides } = await lambdaDetections(process.env, import.meta.url);
  return liveAlerts({
    rules,
    overrides,
    ledger: dynamoFindingLedger(dynamo, table, `snap-${randomUUID().slice(0, 8)}`),
    publish: snsPublisher(withCallLog(new SNSClient({}), process.env), topicArn),
    countFindings: powertoolsFindingCounter(metrics),
  });
}
