import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { iamStatements, synthApp } from '../../devkit/infra/testApp.ts';
import { lakeConfig } from '../../functions/security-lake-export/lakeConfig.ts';
import { securityLakeSchema } from '../../infra/stackSettings.ts';
import { loadRulesSync } from '../../lib/analytics/detect/loadRules.ts';
import { findingsOcsfFields } from '../../lib/analytics/ocsf/findingsOcsfSql.ts';
import { fieldPaths } from '../../lib/analytics/ocsf/ocsfField.ts';
import { OCSF_1_8 } from '../../lib/analytics/ocsf/ocsfProfile.ts';
import { lakeKey } from '../../lib/analytics/ocsf/securityLakeLayout.ts';
import { sessionsOcsfFields } from '../../lib/analytics/ocsf/sessionsOcsfSql.ts';
import { lakeCursorKey } from '../../lib/analytics/ocsf/writeSecurityLake.ts';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
const detections = read('docs/detections.md');
const lakePage = read('docs/security-lake.md');

/** The backticked attribute paths of a Markdown table's first column (`.x` continues the row's first path). */
function tablePaths(table: string): string[] {
  return table
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => {
      const first = l.split('|')[1] ?? '';
      let base = '';
      return [...first.matchAll(/`([^`]+)`/g)].map((m) => {
        const name = m[1] ?? '';
        if (name.startsWith('.')) return `${base}${name.slice(1)}`;
        base = name.includes('.') ? name.slice(0, name.lastIndexOf('.') + 1) : '';
        return name;
      });
    });
}

describe('docs/detections.md OCSF tables', () => {
  const section = detections.slice(detections.indexOf('## OCSF'), detections.indexOf('**Security Lake.**'));
  const [sessionsTable = '', findingsTable = ''] = section.split('Findings are **Detection Finding**');

  it.each([
    ['sessions', sessionsTable, fieldPaths(sessionsOcsfFields(OCSF_1_8))],
    ['findings', findingsTable, fieldPaths(findingsOcsfFields(OCSF_1_8, loadRulesSync()))],
  ])('name only attributes the %s mapping sets', (_, table, paths) => {
    const named = tablePaths(table);
    expect(named.length).toBeGreaterThan(10);
    for (const p of named) expect(paths, p).toContain(p);
  });

  it('says no crawler and no UNLOAD feed the lake', () => {
    expect(detections).toMatch(/Nothing crawls this archive and nothing `UNLOAD`s into the lake/);
    expect(detections).not.toMatch(/Glue crawler role/);
  });
});

describe('docs/security-lake.md', () => {
  const example = JSON.parse(/```json\n([\s\S]+?)\n```/.exec(lakePage)?.[1] ?? '{}') as {
    securityLake: unknown;
  };

  it('gives a securityLake context the stack accepts, and the layout the writer uses', () => {
    const lake = securityLakeSchema.parse(example.securityLake);
    const source = lake.sources[0];
    if (source === undefined) throw new Error('no source in the example');
    const key = lakeKey(
      {
        cls: source.cls,
        location: { bucket: source.bucket, prefix: source.prefix },
        roleArn: '',
        externalId: '',
      },
      'eu-west-1',
      '123456789012',
      '2026-11-19',
      { hour: new Date('2026-11-20T13:00:00Z'), firstSeq: 42 },
    );
    const layout = /```\n<prefix>(.+)\n```/.exec(lakePage)?.[1] ?? '';
    const pattern = layout
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace('<region>', 'eu-west-1')
      .replace('<account>', '123456789012')
      .replace('YYYYMMDD', '20261119')
      .replace('<class>', source.cls)
      .replace('<archived YYYYMMDDHH>', '2026112013')
      .replace('<digest>', '0000000042');
    expect(key).toBe(`${source.prefix}${pattern.replaceAll('\\', '')}`);
  });

  it('states the schedule, the defaults, the cursor items and the alarm as deployed', () => {
    const { template, stack } = synthApp({ context: { securityLake: example.securityLake } });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
    expect(lakePage).toContain('(`rate(1 hour)`)');
    const defaults = lakeConfig(
      loadConfig({
        env: {
          SECURITY_LAKE_SOURCES: JSON.stringify((example.securityLake as { sources: unknown }).sources),
        },
      }),
    );
    expect(lakePage).toContain(`default ${defaults.settleHours}`);
    expect(lakePage).toContain(`at most ${defaults.maxHours} hours a run`);
    expect(lakePage).toContain(`${defaults.lookbackDays} days before them`);
    expect(lakeCursorKey(defaults.sources[0] as never)).toMatch(/^LAKE#/);
    expect(lakePage).toContain('`LAKE#…` items');
    const alarm = stack.getLogicalId(stack.securityLake?.alarm.node.defaultChild as never);
    expect(alarm).toMatch(/^SecurityLakeFailedRunAlarm/);
    expect(lakePage).toContain('`SecurityLakeFailedRunAlarm`');
  });

  it("states the lake key's policy as the stack attaches it, and no KMS grant on the function's role", () => {
    const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555';
    const { template } = synthApp({
      context: { securityLake: { ...(example.securityLake as object), kmsKeyArn: keyArn } },
    });
    const text = JSON.stringify(template.toJSON());
    const sid = /\(`(\w+)`: those two actions/.exec(lakePage)?.[1] ?? '';
    expect(sid).toBe('LakeKeyThroughS3');
    expect(text).toContain(`"Sid":"${sid}"`);
    expect(lakePage).toContain('`s3.<key region>.amazonaws.com`');
    expect(text).toContain('"kms:ViaService":"s3.eu-west-1.amazonaws.com"');
    expect(lakePage).toContain("The\nfunction's role gets no KMS permission.");
    const onKey = iamStatements(template).filter((s) => s.resources.includes(keyArn));
    expect(onKey.length).toBeGreaterThan(0);
    for (const s of onKey) {
      expect(s.actions.sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
      expect(s.condition).toEqual({ StringEquals: { 'kms:ViaService': 's3.eu-west-1.amazonaws.com' } });
    }
  });
});
