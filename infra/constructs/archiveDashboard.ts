import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  type MetricOptions,
  type MetricProps,
  PeriodOverride,
  SingleValueWidget,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DETECT_METRIC, DETECT_SERVICE } from '../../functions/shared/detectTelemetry.ts';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/telemetryNames.ts';
import { SNAPSHOT_METRIC } from '../../functions/snapshot-active/snapshotTelemetry.ts';
import { type ArchiveAlarms, archiverMetric } from './archiveAlarms.ts';

export interface ArchiveDashboardProps {
  alarms: ArchiveAlarms;
  /** The archive-history function (runs by hand, backfills, the weekly verify). */
  archiver: IFunction;
  /** The scheduled fan-out: its function (plan, walk, finish) and its state machine. */
  fanout: { fn: IFunction; stateMachine: IStateMachine };
  /** The full verify job, started for an audit. */
  verifyJob: { fn: IFunction; stateMachine: IStateMachine };
  /** The weekly verify's alarm (VerifyFailures). */
  verifyAlarm: Alarm;
  /** The detect function and the topic it (and the snapshot function's live rules) publish findings to. */
  detections: { fn: IFunction; topic: ITopic };
  /** The 5-minute snapshot function and its alarms. */
  snapshots: { fn: IFunction; alarms: { noSnapshot: Alarm; longSessions: Alarm } };
  /** Alarms of the stack outside `alarms` (the fan-out's failed executions...), shown in the status row. */
  otherAlarms?: Alarm[];
}

const HOUR = Duration.hours(1);
const DAY = Duration.days(1);

/** A metric of the detect function (its own service name, same namespace). */
function detectMetric(name: string, props: Omit<MetricProps, 'namespace' | 'metricName'>): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: DETECT_SERVICE },
    ...props,
  });
}

/**
 * Findings of every rule and severity together, from one service: the findings metrics carry `rule` and
 * `severity` beside `service`, so they are summed over a search (a new rule shows up without a deploy).
 */
function findingsOf(metric: string, service: string, label: string): MathExpression {
  const search = `SEARCH('{${METRICS_NAMESPACE},rule,service,severity} MetricName="${metric}" service="${service}"', 'Sum', ${HOUR.toSeconds()})`;
  return new MathExpression({ expression: `SUM(${search})`, label, period: HOUR });
}

/** The Lambda's own figures: invocations, errors, and its longest run. */
function lambdaGraph(title: string, fn: IFunction): GraphWidget {
  return new GraphWidget({
    title,
    left: [
      fn.metricInvocations({ period: HOUR, statistic: 'Sum', label: 'invocations' }),
      fn.metricErrors({ period: HOUR, statistic: 'Sum', label: 'errors' }),
    ],
    right: [fn.metricDuration({ period: HOUR, statistic: 'Maximum', label: 'longest (ms)' })],
    width: 8,
  });
}

function graph(title: string, left: IMetric[], width = 8, right: IMetric[] = []): GraphWidget {
  return new GraphWidget({ title, left, ...(right.length > 0 ? { right } : {}), width });
}

/** An alarm's own metric, relabelled (or re-aggregated) for a graph: the dashboard never spells it again. */
function alarmMetric(alarm: Alarm, options: MetricOptions): Metric {
  const metric = alarm.metric;
  if (!(metric instanceof Metric)) throw new Error(`alarm ${alarm.node.path} watches no plain metric`);
  return metric.with(options);
}

function header(text: string): TextWidget {
  return new TextWidget({ markdown: text, width: 24, height: 1 });
}

/**
 * One CloudWatch page for the person who runs the stack: the alarms, the runs (archiver, fan-out and its
 * state machine), records archived, days at risk, the walks of big days, the weekly and full verify,
 * detections and the live-session snapshots. Every figure is a metric the code emits (names from
 * `telemetryNames`, `detectTelemetry`, `snapshotTelemetry`) or one AWS keeps for the stack's own resources;
 * where an alarm watches a figure, the graph shows the alarm's own metric.
 */
export class ArchiveDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ArchiveDashboardProps) {
    super(scope, id);
    const { alarms } = props.alarms;
    const run = (name: Parameters<typeof archiverMetric>[0], statistic: string, label: string) =>
      archiverMetric(name, { period: HOUR, statistic, label });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(14),
      periodOverride: PeriodOverride.INHERIT,
    });

    const allAlarms = [
      ...Object.values(alarms),
      ...(props.alarms.fanoutErrors ? [props.alarms.fanoutErrors] : []),
      props.verifyAlarm,
      ...Object.values(props.snapshots.alarms),
      ...(props.otherAlarms ?? []),
    ];
    this.dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'Alarms (each says what to do in its description)',
        alarms: allAlarms,
        width: 24,
        height: 3,
      }),
    );

    this.dashboard.addWidgets(header('## Runs'));
    this.dashboard.addWidgets(
      lambdaGraph('Fan-out function (scheduled runs: plan, walk, finish)', props.fanout.fn),
      graph('Fan-out executions', [
        props.fanout.stateMachine.metricSucceeded({ period: HOUR, statistic: 'Sum', label: 'succeeded' }),
        props.fanout.stateMachine.metricFailed({ period: HOUR, statistic: 'Sum', label: 'failed' }),
        props.fanout.stateMachine.metricTimedOut({ period: HOUR, statistic: 'Sum', label: 'timed out' }),
      ]),
      lambdaGraph('Archiver function (by hand, backfill, weekly verify)', props.archiver),
    );
    this.dashboard.addWidgets(
      graph('Runs finished and failed on the key or plan', [
        alarmMetric(alarms.noSuccess, { period: HOUR, label: 'runs finished (RunSucceeded)' }),
        alarmMetric(alarms.authFailures, { label: 'key or plan rejected (AuthFailures)' }),
      ]),
      graph('Days that failed this run', [
        run(METRIC.DayFailures, 'Maximum', 'days failed (DayFailures)'),
        alarmMetric(alarms.dayFailing, { label: 'longest failing streak (DayFailureStreak)' }),
      ]),
      graph('Files waiting, partitions blocked', [
        alarmMetric(alarms.unpublishedFiles, { label: 'oldest unpublished file (hours)' }),
        alarmMetric(alarms.brokenPartitions, { label: 'broken partitions' }),
      ]),
    );

    this.dashboard.addWidgets(header('## Records and days at risk'));
    this.dashboard.addWidgets(
      new SingleValueWidget({
        title: 'Records archived (14 days)',
        metrics: [archiverMetric(METRIC.RecordsArchived, { period: Duration.days(14), statistic: 'Sum' })],
        width: 6,
        height: 6,
      }),
      graph('Records archived per hour', [run(METRIC.RecordsArchived, 'Sum', 'new records')], 6),
      graph(
        'Days at risk and gaps',
        [
          alarmMetric(alarms.daysAtRisk, { label: 'unsealed days within 2 days of the window (DaysAtRisk)' }),
          alarmMetric(alarms.gaps, { label: 'days that left the window unsealed (Gaps)' }),
        ],
        6,
      ),
      graph(
        'Short days and deferred days',
        [
          run(METRIC.Shortfalls, 'Maximum', 'days short of totalElements'),
          run(METRIC.DaysDeferred, 'Maximum', 'days left for the next run'),
        ],
        6,
      ),
    );

    this.dashboard.addWidgets(
      header('## Walks of big days (a walk the deadline cuts goes on in the next run)'),
    );
    this.dashboard.addWidgets(
      graph('Pages fetched per hour', [run(METRIC.PagesFetched, 'Sum', 'pages')]),
      graph('Walks cut by the deadline', [run(METRIC.WalksCut, 'Maximum', 'walks cut')]),
      graph('Pages the furthest-behind walk still needs', [
        run(METRIC.WalkPagesLeft, 'Maximum', 'pages left (falls run after run)'),
      ]),
    );

    this.dashboard.addWidgets(header('## Verify'));
    this.dashboard.addWidgets(
      graph('Weekly verify', [
        alarmMetric(props.verifyAlarm, { label: 'failures (VerifyFailures)' }),
        archiverMetric(METRIC.VerifyPending, {
          period: DAY,
          statistic: 'Maximum',
          label: 'records still to come',
        }),
      ]),
      graph(
        'Full verify job executions',
        [
          props.verifyJob.stateMachine.metricSucceeded({ period: DAY, statistic: 'Sum', label: 'succeeded' }),
          props.verifyJob.stateMachine.metricFailed({ period: DAY, statistic: 'Sum', label: 'failed' }),
        ],
        8,
        [props.verifyJob.fn.metricErrors({ period: DAY, statistic: 'Sum', label: 'worker errors' })],
      ),
      graph('Digest chain head', [run(METRIC.ChainHeadSeq, 'Maximum', 'head seq (grows every run)')]),
    );

    this.dashboard.addWidgets(header('## Detections'));
    this.dashboard.addWidgets(
      lambdaGraph('Detect function', props.detections.fn),
      graph('Evaluations and new findings', [
        detectMetric(DETECT_METRIC.EvaluationSucceeded, {
          period: HOUR,
          statistic: 'Minimum',
          label: 'evaluation succeeded (0: one failed)',
        }),
        findingsOf(DETECT_METRIC.NewFindings, DETECT_SERVICE, 'new findings (scheduled rules)'),
        findingsOf(DETECT_METRIC.NewFindings, SERVICE_NAME, 'new findings (live rules)'),
      ]),
      graph('Findings published', [
        props.detections.topic.metricNumberOfMessagesPublished({
          period: HOUR,
          statistic: 'Sum',
          label: 'messages to the findings topic',
        }),
      ]),
    );

    this.dashboard.addWidgets(header('## Live-session snapshots'));
    this.dashboard.addWidgets(
      lambdaGraph('Snapshot function (every 5 minutes)', props.snapshots.fn),
      graph('Snapshots', [
        alarmMetric(props.snapshots.alarms.noSnapshot, {
          statistic: 'Sum',
          label: 'snapshots stored (SnapshotSucceeded)',
        }),
        archiverMetric(SNAPSHOT_METRIC.SnapshotGaps, {
          period: HOUR,
          statistic: 'Sum',
          label: 'snapshot gaps',
        }),
      ]),
      graph('Live sessions', [
        archiverMetric(SNAPSHOT_METRIC.ActiveRows, { period: HOUR, statistic: 'Sum', label: 'active rows' }),
        alarmMetric(props.snapshots.alarms.longSessions, { label: 'sessions history will never list' }),
      ]),
    );
  }
}

/** The console address of a dashboard (the stack's `DashboardUrl` output). */
export function dashboardUrl(region: string, name: string): string {
  return `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards/dashboard/${name}`;
}
