import { describe, expect, it } from 'vitest';
import { iamStatements, resourceSuffix, synthApp } from '../../devkit/infra/testApp.ts';
import { SNAPSHOT_METRIC } from '../../functions/snapshot-active/snapshotTelemetry.ts';
import { ACTIVE_TABLE, activeViews } from '../../lib/analytics/query/activeViews.ts';
import { ACTIVE_COLUMNS } from '../../lib/archive/active/activeSchema.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { ACTIVE_CHUNK_PREFIX } from '../../lib/archive/state/activeChunks.ts';

const { stack, template } = synthApp();
// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation JSON, asserted field by field.
type Json = Record<string, any>;
const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: Json }> };
const logicalId = (c: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(c.node.defaultChild as never);
const glueTable = (name: string) =>
  Object.values(json.Resources).find(
    (r) => r.Type === 'AWS::Glue::Table' && r.Properties.TableInput.Name === name,
  )?.Properties.TableInput;
const snapshotFn = json.Resources[logicalId(stack.snapshots.fn)]?.Properties;
const archiveBucket = { Ref: logicalId(stack.buckets.archive) };

describe('live sessions in the stack', () => {
  it('runs the snapshot function apart from the archiver: own role, no retries', () => {
    expect(snapshotFn).toMatchObject({
      Runtime: 'nodejs24.x',
      Timeout: 120,
      MemorySize: 256,
    });
    expect(snapshotFn?.Role).not.toEqual(json.Resources[logicalId(stack.archiver.fn)]?.Properties.Role);
    expect(snapshotFn?.Environment.Variables).toMatchObject({
      SNAPSHOT_INTERVAL_MINUTES: '5',
      TOKEN_VALUES: 'hash',
      ARCHIVE_DEST: { 'Fn::Join': ['', ['s3://', archiveBucket, '/']] },
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(stack.snapshots.fn) },
      MaximumRetryAttempts: 0,
    });
  });

  it('is started every 5 minutes', () => {
    const rule = json.Resources[logicalId(stack.snapshots.rule)]?.Properties;
    expect(rule?.ScheduleExpression).toBe('rate(5 minutes)');
    expect(rule?.Targets).toEqual([
      expect.objectContaining({ Arn: { 'Fn::GetAtt': [logicalId(stack.snapshots.fn), 'Arn'] } }),
    ]);
  });

  it('reaches only active/ objects, its staged files, the ACTIVE and active/ manifest items, and its two secrets', () => {
    const policy = Object.values(json.Resources).find(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(r.Properties.Roles) ===
          JSON.stringify([{ Ref: logicalId(stack.snapshots.fn.role as never) }]),
    );
    const statements = policy?.Properties.PolicyDocument.Statement as Json[];
    const actions = statements.flatMap((s) => [s.Action].flat());
    // No wildcard action anywhere.
    expect(actions.filter((a: string) => a.includes('*'))).toEqual([]);
    // It deletes only staged files (the committer removes them once published), never active/ rows,
    // and only the chunk items of a live-session state too big for one item, never a manifest.
    const deleting = statements.filter((s) => [s.Action].flat().some((a: string) => /Delete/.test(a)));
    // StageFindings: the live rules' findings, staged in findings/' own area (the detections construct's grant).
    expect(deleting.map((s) => s.Sid)).toEqual(['StageActiveRows', 'ActiveStateChunks', 'StageFindings']);
    expect(JSON.stringify(deleting[2]?.Resource)).toContain(`/${archiveKeys.stagingAreas.findings}*`);
    expect([deleting[0]?.Action].flat().filter((a: string) => /Delete/.test(a))).toEqual(['s3:DeleteObject']);
    expect(deleting[1]).toMatchObject({
      Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ACTIVE_CHUNK_PREFIX}*`] } },
    });
    const objects = statements.find((s) => s.Sid === 'ActiveRowsNoDelete');
    expect(objects?.Action).toEqual(['s3:GetObject', 's3:PutObject']);
    expect(resourceSuffix(objects?.Resource)).toBe('/active/*');
    const staging = statements.find((s) => s.Sid === 'StageActiveRows');
    expect(staging?.Action).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:PutObject']);
    expect(resourceSuffix(staging?.Resource)).toBe(`/${archiveKeys.stagingAreas.active}*`);
    expect(statements.find((s) => s.Sid === 'ListActive')?.Condition).toEqual({
      StringLike: { 's3:prefix': ['active/*'] },
    });
    expect(statements.find((s) => s.Sid === 'ActiveStateItems')).toMatchObject({
      Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      Condition: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACTIVE', 'PART#active#*', 'META'] },
      },
    });
    // Secrets: only GetSecretValue, on the API key and the token key (DescribeSecret is not needed).
    const secrets = statements.filter((s) =>
      [s.Action].flat().some((a: string) => a.startsWith('secretsmanager:')),
    );
    expect(secrets.flatMap((s) => [s.Action].flat())).toEqual([
      'secretsmanager:GetSecretValue',
      'secretsmanager:GetSecretValue',
    ]);
    expect(secrets.map((s) => s.Resource)).toEqual([
      { Ref: logicalId(stack.apiKey.secret as never) },
      { Ref: logicalId(stack.integrity.tokenKey) },
    ]);
    expect(snapshotFn?.Environment.Variables.TOKEN_KEY_SECRET_ID).toEqual({
      Ref: logicalId(stack.integrity.tokenKey),
    });
    // The archiver's own grants are unchanged: it never got active/ through this construct.
    expect(iamStatements(template).length).toBeGreaterThan(statements.length);
  });

  it('alarms on no snapshot in an hour and on long sessions', () => {
    for (const name of [SNAPSHOT_METRIC.SnapshotSucceeded, SNAPSHOT_METRIC.LongSessions]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: name,
        AlarmActions: [{ Ref: logicalId(stack.alarms.topic) }],
      });
    }
  });

  it('has a Glue table over active/ with the Parquet columns and dt projected like history', () => {
    const table = glueTable(ACTIVE_TABLE);
    expect(table.StorageDescriptor.Columns).toEqual(
      ACTIVE_COLUMNS.map((c) => ({ Name: c.name, Type: c.athenaType })),
    );
    expect(table.PartitionKeys).toEqual([expect.objectContaining({ Name: 'dt', Type: 'string' })]);
    expect(table.StorageDescriptor.Location).toEqual({
      'Fn::Join': ['', ['s3://', archiveBucket, '/active/']],
    });
    expect(table.Parameters).toMatchObject({
      'projection.enabled': 'true',
      'projection.dt.type': 'date',
      'projection.dt.format': 'yyyy-MM-dd',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Athena's own ${dt} placeholder, not JS.
      'storage.location.template': { 'Fn::Join': ['', ['s3://', archiveBucket, '/active/dt=${dt}/']] },
    });
  });

  it.each(Object.values(activeViews({ windowDays: 60 })))(
    'deploys the view $name with the same SQL the local DuckDB setup runs',
    ({ name, sql, columns }) => {
      const view = glueTable(name);
      expect(view.TableType).toBe('VIRTUAL_VIEW');
      expect(view.Parameters).toEqual({ presto_view: 'true', comment: 'Presto View' });
      const encoded = /^\/\* Presto View: (.+) \*\/$/.exec(view.ViewOriginalText)?.[1] ?? '';
      const presto = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
      expect(presto).toMatchObject({ originalSql: sql, catalog: 'awsdatacatalog', schema: 'tunnel_archive' });
      expect(presto.columns.map((c: { name: string }) => c.name)).toEqual(columns.map((c) => c.name));
      expect(view.StorageDescriptor.Columns).toEqual(
        columns.map((c) => ({ Name: c.name, Type: c.athenaType })),
      );
    },
  );
});
