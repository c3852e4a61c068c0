import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { FindingCounter } from './countPerRule.ts';

/** Publishes a finding's message to the findings topic. */
export function snsPublisher(sns: Pick<SNSClient, 'send'>, topicArn: string) {
  return async (subject: string, message: string): Promise<void> => {
    await sns.send(new PublishCommand({ TopicArn: topicArn, Subject: subject, Message: message }));
  };
}

/** Findings per rule and severity as CloudWatch metrics with both dimensions (EMF, through Powertools). */
export function powertoolsFindingCounter(metrics: Metrics): FindingCounter {
  return (metric, rule, severity, count) => {
    const single = metrics.singleMetric();
    single.addDimension('rule', rule);
    single.addDimension('severity', severity);
    single.addMetric(metric, MetricUnit.Count, count);
  };
}
