import { Annotations, Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Metric,
  type MetricProps,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';
import {
  METRIC,
  METRICS_NAMESPACE,
  type MetricName,
  SERVICE_NAME,
} from '../../functions/shared/telemetryNames.ts';
import type { SnapshotMetricName } from '../../functions/snapshot-active/snapshotTelemetry.ts';

export interface ArchiveAlarmsProps {
  fn: IFunction;
  alarmEmail?: string;
}

/**
 * A metric the archiver (or the snapshot function, same service) emits through Powertools, which adds the
 * `service` dimension: the alarms and the dashboard build theirs here.
 */
export function archiverMetric(
  name: MetricName | SnapshotMetricName,
  props: Omit<MetricProps, 'namespace' | 'metricName'>,
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME },
    ...props,
  });
}

/**
 * The alarm topic (KMS-encrypted, TLS-only; CloudWatch may use the key) and the five alarms that
 * tell an unattended deployment's owner something needs a person before data is lost.
 */
export class ArchiveAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Record<
    | 'errors'
    | 'authFailures'
    | 'noSuccess'
    | 'daysAtRisk'
    | 'gaps'
    | 'dayFailing'
    | 'brokenPartitions'
    | 'stagedFilesChanged'
    | 'unpublishedFiles',
    Alarm
  >;

  /** Errors of the fan-out's function (its plan, walk and finish steps), once `watchFanoutErrors` adds it. */
  fanoutErrors?: Alarm;

  constructor(scope: Construct, id: string, props: ArchiveAlarmsProps) {
    super(scope, id);
    const key = new Key(this, 'TopicKey', {
      enableKeyRotation: true,
      description: 'Encrypts the tunnel-archiver alarm topic',
    });
    // CloudWatch alarms publish to an encrypted topic only if they may use its key.
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Topic', {
      masterKey: key,
      enforceSSL: true,
      displayName: 'tunnel-archiver alarms',
    });
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    const hour = Duration.hours(1);
    const alarm = (id: string, description: string, spec: ConstructorParameters<typeof Alarm>[2]) =>
      this.alarm(id, description, spec);

    this.alarms = {
      errors: alarm(
        'FunctionErrors',
        'The archive-history function failed: a run started by hand, a backfill or the weekly verify (see its logs and the failure queue). Scheduled runs go through the fan-out.',
        {
          metric: props.fn.metricErrors({ period: hour, statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        },
      ),
      authFailures: alarm(
        'AuthFailures',
        'The API rejected the key or the plan: set a valid key in the secret (put-secret-value) or renew the paid plan. Nothing is archived until then.',
        {
          metric: archiverMetric(METRIC.AuthFailures, { period: hour, statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        },
      ),
      noSuccess: alarm(
        'NoSuccessfulRun',
        'No archiver run succeeded in 24 hours (failing, throttled, or not scheduled). Days leave the 60-day API window for good if this lasts.',
        {
          metric: archiverMetric(METRIC.RunSucceeded, { period: Duration.days(1), statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.BREACHING,
        },
      ),
      daysAtRisk: alarm(
        'DaysAtRisk',
        'Unsealed days are within 2 days of leaving the API window: make sure runs succeed now, or late records of those days are lost.',
        {
          metric: archiverMetric(METRIC.DaysAtRisk, { period: hour, statistic: 'Maximum' }),
          threshold: 0,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.IGNORE,
        },
      ),
      gaps: alarm(
        'Gaps',
        'A day left the API window before it was sealed: records that arrived late for it may be missing from the archive.',
        {
          metric: archiverMetric(METRIC.Gaps, { period: hour, statistic: 'Maximum' }),
          threshold: 0,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.IGNORE,
        },
      ),
      dayFailing: alarm(
        'DayFailingRepeatedly',
        'The same history day has failed on 3 runs in a row (see the "day failed" log lines: day, code, message). The other days are archived; this one is retried every run.',
        {
          metric: archiverMetric(METRIC.DayFailureStreak, { period: hour, statistic: 'Maximum' }),
          threshold: 3,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.IGNORE,
        },
      ),
      brokenPartitions: alarm(
        'BrokenPartitions',
        "A partition's manifest lists a file that is gone: that partition is blocked. Restore the object, or run 'tunnel-archiver repair --dt DAY'.",
        {
          metric: archiverMetric(METRIC.BrokenPartitions, { period: hour, statistic: 'Maximum' }),
          threshold: 0,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.IGNORE,
        },
      ),
      stagedFilesChanged: alarm(
        'StagedFilesChanged',
        "A staged file's bytes were not what its writer staged (STAGED_FILE_CHANGED): it was not published or digested, and left its manifest. Someone wrote under _staging/: see the 'staged file changed' log line and the bucket access log (docs/operations.md, Threat model).",
        {
          metric: archiverMetric(METRIC.StagedFilesChanged, { period: hour, statistic: 'Maximum' }),
          threshold: 0,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.IGNORE,
        },
      ),
      unpublishedFiles: alarm(
        'UnpublishedFiles',
        'A committed file has waited in _staging/ for more than a day: runs are failing before they can publish it (see FunctionErrors).',
        {
          metric: archiverMetric(METRIC.UnpublishedFileAgeHours, { period: hour, statistic: 'Maximum' }),
          threshold: 24,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.IGNORE,
        },
      ),
    };
  }

  /**
   * An alarm on the fan-out function's errors: any in an hour. The scheduled runs go through it, so a
   * failing plan, walk or finish step is seen here first (a failed day is also counted in DayFailures).
   */
  watchFanoutErrors(fn: IFunction): Alarm {
    this.fanoutErrors = this.alarm(
      'FanoutFunctionErrors',
      "The fan-out's function failed in a plan, walk or finish step (see its logs: 'fan-out ... failed'). The next schedule starts again.",
      {
        metric: fn.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      },
    );
    return this.fanoutErrors;
  }

  private alarm(id: string, description: string, spec: ConstructorParameters<typeof Alarm>[2]): Alarm {
    const a = new Alarm(this, id, { ...spec, alarmDescription: description });
    a.addAlarmAction(new SnsAction(this.topic));
    return a;
  }
}

/** The id of the synth warning of a stack whose alarms reach nobody. */
export const NO_ALARM_SUBSCRIBER_WARNING = 'tunnel-archiver:noAlarmSubscriber';

/**
 * Warns at synth (`cdk synth` and `cdk deploy` print it) when the alarm topic gets no subscriber: a deleted
 * digest, a changed staged file or a failing run then alarms nobody. Set `alarmEmail`, or say why with
 * `alarmsUnsubscribed` (a team that subscribes its own pager to the AlarmTopicArn output).
 */
export function warnWithoutAlarmSubscriber(
  scope: IConstruct,
  settings: { alarmEmail?: string; alarmsUnsubscribed?: string },
): void {
  if (settings.alarmEmail !== undefined || settings.alarmsUnsubscribed !== undefined) return;
  Annotations.of(scope).addWarningV2(
    NO_ALARM_SUBSCRIBER_WARNING,
    'The alarm topic has no subscriber: a deleted archive object, a changed staged file or a failing run alarms nobody. ' +
      "Deploy with -c alarmEmail=you@example.com, or subscribe your pager to the AlarmTopicArn output and acknowledge with -c alarmsUnsubscribed='<why>' (docs/operations.md, Threat model).",
  );
}
