import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { commitFindings } from '../../lib/analytics/detect/findingsDataset.ts';
import { versionedFindingLedger } from '../../lib/analytics/detect/versionedFindingLedger.ts';
import type { ActiveObservations } from '../../lib/archive/active/activeState.ts';
import { type CommitterDeps, PartitionCommitter } from '../../lib/archive/commit/partitionCommitter.ts';
import { dynamoVersionedItems } from '../../lib/archive/state/dynamoVersionedItems.ts';
import { systemClock } from '../../lib/foundation/clock/clock.ts';
import type { Logger } from '../../lib/foundation/log/logger.ts';
import { withHostPlugins } from '../shared/awsClients.ts';
import { powertoolsFindingCounter, snsPublisher } from '../shared/awsFindingSinks.ts';
import { eventBridgeFindingEvents, sdkPutEvents } from '../shared/eventBridgeFindingEvents.ts';
import { lambdaDetections } from '../shared/lambdaDetections.ts';
import { liveAlerts } from '../shared/liveAlerts.ts';

/**
 * The snapshot Lambda's live-rule hook, wired to the state table (the ledger), `findings/` through the
 * archive's committer (as `detect` writes it), the findings topic and EventBridge. Each snapshot
 * records as an owner of its own: a claim the ledger finds held by the same owner counts as ours (a
 * retried write), so an owner kept for the container would deliver every finding again on every snapshot.
 */
export async function liveAlertsFor(
  dynamo: DynamoDBClient,
  table: string,
  archive: Pick<CommitterDeps, 'objects' | 'state'>,
  topicArn: string,
  metrics: Metrics,
  logger: Logger,
): Promise<(observations: ActiveObservations, observedAt: Date) => Promise<void>> {
  const { rules, overrides } = await lambdaDetections(process.env, import.meta.url);
  const sns = withHostPlugins(new SNSClient({}));
  const publish = snsPublisher(sns, topicArn);
  const events = eventBridgeFindingEvents(
    sdkPutEvents(withHostPlugins(new EventBridgeClient({ region: await sns.config.region() }))),
  );
  const countFindings = powertoolsFindingCounter(metrics);
  const items = dynamoVersionedItems({ client: dynamo, table });
  return (observations, observedAt) => {
    const owner = `snap-${randomUUID().slice(0, 8)}`;
    return liveAlerts({
      rules,
      overrides,
      ledger: versionedFindingLedger(items, owner),
      commitFindings: (findings) =>
        commitFindings(
          new PartitionCommitter({
            ...archive,
            clock: systemClock,
            logger,
            runId: owner,
            fence: 0,
            tmpDir: join(tmpdir(), 'tunnel-archiver-snapshot-findings'),
          }),
          findings,
        ),
      publish,
      events,
      countFindings,
      logger,
    })(observations, observedAt);
  };
}
