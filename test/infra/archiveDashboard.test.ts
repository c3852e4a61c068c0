import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { DETECT_METRIC, DETECT_SERVICE } from '../../functions/shared/detectTelemetry.ts';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/telemetryNames.ts';
import { SNAPSHOT_METRIC } from '../../functions/snapshot-active/snapshotTelemetry.ts';

const { template } = synthApp();
const resources = template.toJSON().Resources as Record<
  string,
  { Type: string; Properties: Record<string, unknown> }
>;

const FUNCTIONS = fileURLToPath(new URL('../../functions/', import.meta.url));
const TELEMETRY = { METRIC, DETECT_METRIC, SNAPSHOT_METRIC } as const;
const DEFINITIONS = [
  'shared/telemetryNames.ts',
  'shared/detectTelemetry.ts',
  'snapshot-active/snapshotTelemetry.ts',
];

/** Names of the telemetry modules that code in functions/ (not the modules themselves) refers to: what is emitted. */
function emittedNames(): Set<string> {
  const files = readdirSync(FUNCTIONS, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => !DEFINITIONS.includes(relative(FUNCTIONS, join(FUNCTIONS, f))));
  const names = new Set<string>();
  for (const f of files) {
    const code = readFileSync(join(FUNCTIONS, f), 'utf8');
    for (const m of code.matchAll(/\b(METRIC|DETECT_METRIC|SNAPSHOT_METRIC)\.(\w+)/g)) {
      const group = TELEMETRY[m[1] as keyof typeof TELEMETRY] as Record<string, string>;
      const name = group[m[2] as string];
      if (name !== undefined) names.add(name);
    }
  }
  return names;
}

/** The dashboard's body, its tokens (`Ref`, `Fn::GetAtt`) written as `@@LogicalId@@`, parsed. */
function dashboardBody(): { widgets: { type: string; properties: Record<string, unknown> }[] } {
  const dashboards = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0]?.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const text = body['Fn::Join'][1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const p = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
      return `@@${p.Ref ?? p['Fn::GetAtt']?.[0]}@@`;
    })
    .join('');
  return JSON.parse(text);
}

const widgets = dashboardBody().widgets;
const metricRows = widgets
  .filter((w) => w.type === 'metric')
  .flatMap((w) => (w.properties.metrics as unknown[][]).map((row) => ({ title: w.properties.title, row })));

/** One graphed series: its namespace, name and dimensions, or an expression. */
function series(row: unknown[]): {
  namespace?: string;
  name?: string;
  dims: Record<string, string>;
  expression?: string;
} {
  const options = row.find((x) => typeof x === 'object') as { expression?: string } | undefined;
  const plain = row.filter((x): x is string => typeof x === 'string');
  if (options?.expression !== undefined) return { expression: options.expression, dims: {} };
  const [namespace, name, ...rest] = plain;
  const dims: Record<string, string> = {};
  for (let i = 0; i + 1 < rest.length; i += 2) dims[rest[i] as string] = rest[i + 1] as string;
  return { ...(namespace ? { namespace } : {}), ...(name ? { name } : {}), dims };
}

describe('ArchiveDashboard', () => {
  const emitted = emittedNames();

  it('reads the emitted names from the code (a sanity check of the scan itself)', () => {
    expect(emitted).toContain(METRIC.RecordsArchived);
    expect(emitted).toContain(DETECT_METRIC.NewFindings);
    expect(emitted).toContain(SNAPSHOT_METRIC.SnapshotSucceeded);
    expect(emitted.size).toBeGreaterThan(15);
  });

  it('graphs only metrics the code emits, under the service that emits them', () => {
    const ours = metricRows
      .map((m) => ({ ...m, s: series(m.row) }))
      .filter((m) => m.s.namespace === METRICS_NAMESPACE);
    expect(ours.length).toBeGreaterThan(15);
    for (const { title, s } of ours) {
      expect(emitted, `${title}: ${s.name}`).toContain(s.name);
      expect([SERVICE_NAME, DETECT_SERVICE], `${title}: ${s.name}`).toContain(s.dims.service);
      expect(Object.keys(s.dims), `${title}: ${s.name}`).toEqual(['service']);
    }
  });

  it('searches only for emitted metrics of its own namespace', () => {
    const expressions = metricRows.map((m) => series(m.row).expression).filter((e) => e !== undefined);
    expect(expressions.length).toBeGreaterThan(0);
    for (const e of expressions) {
      for (const m of e.matchAll(/\{([^,}]+)/g)) expect(m[1]).toBe(METRICS_NAMESPACE);
      const names = [...e.matchAll(/MetricName="(\w+)"/g)].map((m) => m[1]);
      expect(names.length, e).toBeGreaterThan(0);
      for (const n of names) expect(emitted, e).toContain(n);
    }
  });

  it("graphs AWS's own metrics only of the stack's resources", () => {
    const aws = metricRows.map((m) => series(m.row)).filter((s) => s.namespace?.startsWith('AWS/'));
    expect(aws.length).toBeGreaterThan(10);
    for (const s of aws)
      for (const value of Object.values(s.dims)) {
        const id = /^@@(\w+)@@$/.exec(value)?.[1];
        expect(id && resources[id], `${s.namespace} ${s.name} ${value}`).toBeTruthy();
      }
  });

  it('shows what an operator looks for: runs, records, days at risk, walks, verify, detections, snapshots', () => {
    const shown = new Set(metricRows.map((m) => series(m.row)).map((s) => `${s.namespace}:${s.name}`));
    const ns = METRICS_NAMESPACE;
    for (const wanted of [
      `${ns}:${METRIC.RunSucceeded}`,
      `${ns}:${METRIC.RecordsArchived}`,
      `${ns}:${METRIC.DaysAtRisk}`,
      `${ns}:${METRIC.PagesFetched}`,
      `${ns}:${METRIC.WalksCut}`,
      `${ns}:${METRIC.WalkPagesLeft}`,
      `${ns}:${METRIC.VerifyFailures}`,
      `${ns}:${DETECT_METRIC.EvaluationSucceeded}`,
      `${ns}:${SNAPSHOT_METRIC.SnapshotSucceeded}`,
      'AWS/Lambda:Invocations',
      'AWS/Lambda:Errors',
      'AWS/Lambda:Duration',
      'AWS/States:ExecutionsSucceeded',
      'AWS/States:ExecutionsFailed',
      'AWS/SNS:NumberOfMessagesPublished',
    ])
      expect(shown, wanted).toContain(wanted);
    const lambdas = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
    const graphed = new Set(
      metricRows
        .map((m) => series(m.row))
        .filter((s) => s.namespace === 'AWS/Lambda' && s.name === 'Errors')
        .map((s) => /^@@(\w+)@@$/.exec(s.dims.FunctionName ?? '')?.[1]),
    );
    // Every function of the stack: the archiver, the fan-out, the verify job, the snapshots, detect.
    const ours = lambdas.map(([id]) => id);
    expect(ours.length).toBeGreaterThanOrEqual(5);
    for (const id of ours) expect(graphed, id).toContain(id);
  });

  it('shows the state of every alarm of the stack', () => {
    const statusWidget = widgets.find((w) => w.type === 'alarm');
    const shown = new Set(
      ((statusWidget?.properties.alarms as string[]) ?? []).map((a) => /^@@(\w+)@@$/.exec(a)?.[1]),
    );
    const alarms = Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
      .map(([id]) => id);
    expect(alarms.length).toBeGreaterThan(5);
    for (const id of alarms) expect(shown, id).toContain(id);
  });

  it('is linked from the stack outputs', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(JSON.stringify(outputs.DashboardUrl?.Value)).toContain('#dashboards/dashboard/');
  });
});
