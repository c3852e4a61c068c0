import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { DETECT_METRIC, DETECT_SERVICE } from '../../functions/shared/detectTelemetry.ts';
import { METRIC, METRICS_NAMESPACE } from '../../functions/shared/telemetryNames.ts';
import { SNAPSHOT_METRIC } from '../../functions/snapshot-active/snapshotTelemetry.ts';
import { PREFIX } from '../../infra/constructs/archiveBuckets.ts';
import { WORKGROUP_NAME } from '../../infra/constructs/historyCatalog.ts';
import { lakeSourceSchema } from '../../lib/analytics/ocsf/lakeSourceSchema.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { LAKE_CONTEXT, LAKE_SOURCE } from './lakeSource.ts';

const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const section = doc.slice(
  doc.indexOf('## First deploy'),
  doc.indexOf('\n## ', doc.indexOf('## First deploy') + 3),
);
const tokens = [...new Set([...section.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string))];
// With the Security Lake opt-in, whose first export the section names too.
const { template } = synthApp({ context: LAKE_CONTEXT });
const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
const outputs = new Set(Object.keys(template.toJSON().Outputs ?? {}));
const schedules = Object.values(template.findResources('AWS::Events::Rule')).map((r) =>
  String(r.Properties.ScheduleExpression),
);
const metrics = new Set<string>([
  ...Object.values(METRIC),
  ...Object.values(SNAPSHOT_METRIC),
  ...Object.values(DETECT_METRIC),
]);
const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** What each kind of name in the section must be in the code or the template. */
const KNOWN: [kind: string, test: (t: string) => boolean][] = [
  ['a stack output', (t) => outputs.has(t)],
  ['a metric the functions write', (t) => metrics.has(t)],
  ['a schedule of the template', (t) => schedules.includes(t)],
  ['a prefix of the archive', (t) => (Object.values(PREFIX) as string[]).includes(t)],
  ['a key of the archive', (t) => t === archiveKeys.report || t === archiveKeys.lastVerify],
  ['a setting', (t) => SETTINGS.some((s) => s.env === t)],
  [
    'the namespace, workgroup or detect service',
    (t) => [METRICS_NAMESPACE, WORKGROUP_NAME, DETECT_SERVICE].includes(t),
  ],
  ['the state item a first run creates', (t) => t === 'META'],
  ['an alarm of the template, by its logical id', (t) => alarms.some((id) => id.startsWith(t))],
  [
    "the lake's custom source prefix",
    // The schema takes `<t><source name>/` and nothing outside t.
    (t) =>
      t.endsWith('/') &&
      lakeSourceSchema.safeParse({ ...LAKE_SOURCE, prefix: `${t}source/` }).success &&
      !lakeSourceSchema.safeParse({ ...LAKE_SOURCE, prefix: `other-${t}source/` }).success,
  ],
  [
    'a log message of the archiver or the detect function',
    (t) =>
      source('functions/archive-history/archiveHandler.ts').includes(`'${t}'`) ||
      source('functions/detect/detectHandler.ts').includes(`'${t}'`),
  ],
  ['the status command', (t) => t.startsWith('npx tunnel-archiver status --dest s3://')],
];

describe('docs/operations.md, first deploy', () => {
  it('names only outputs, metrics, schedules, prefixes and messages the stack and functions have', () => {
    expect(tokens.length).toBeGreaterThan(15);
    expect(tokens.filter((t) => !KNOWN.some(([, test]) => test(t)))).toEqual([]);
  });

  it('says when the snapshot and the detection rules first run: their schedules are every 5 minutes', () => {
    expect(section).toContain('first snapshot (within 5 minutes)');
    expect(section).toContain('first detection evaluation (within 5 minutes)');
    expect(schedules.filter((s) => s === 'rate(5 minutes)')).toHaveLength(2);
    expect(SETTINGS.find((s) => s.env === 'SNAPSHOT_COMMIT_MINUTES')?.default).toBe('60');
  });

  it('says when the Security Lake export first runs: its schedule is hourly', () => {
    expect(section).toContain(
      'first Security Lake export (when the stack has the Security Lake opt-in, on `rate(1 hour)`)',
    );
    expect(schedules.filter((s) => s === 'rate(1 hour)')).toHaveLength(1);
  });
});
