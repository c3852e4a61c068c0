import { randomUUID } from 'node:crypto';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { dynamoFindingLedger } from '../../lib/detect/dynamoFindingLedger.ts';
import type { ActiveObservations } from '../../lib/state/stateStore.ts';
import { withCallLog } from '../shared/awsClients.ts';
import { powertoolsFindingCounter, snsPublisher } from '../shared/awsFindingSinks.ts';
import { lambdaDetections } from '../shared/lambdaDetections.ts';
import { liveAlerts } from '../shared/liveAlerts.ts';

/**
 * The snapshot Lambda's live-rule hook, wired to the state table (claims) and the findings topic. Each
 * snapshot claims as an owner of its own: a claim the ledger finds held by the same owner counts as
 * ours (a retried write), so an owner kept for the container would deliver every finding again on
 * every snapshot.
 */
export async function liveAlertsFor(
  dynamo: DynamoDBClient,
  table: string,
  topicArn: string,
  metrics: Metrics,
): Promise<(observations: ActiveObservations, observedAt: Date) => Promise<void>> {
  const { rules, overrides } = await lambdaDetections(process.env, import.meta.url);
  const publish = snsPublisher(withCallLog(new SNSClient({}), process.env), topicArn);
  const countFindings = powertoolsFindingCounter(metrics);
  return (observations, observedAt) =>
    liveAlerts({
      rules,
      overrides,
      ledger: dynamoFindingLedger(dynamo, table, `snap-${randomUUID().slice(0, 8)}`),
      publish,
      countFindings,
    })(observations, observedAt);
}
