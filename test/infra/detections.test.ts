import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { FINDINGS_COLUMNS, FINDINGS_TABLE } from '../../lib/analytics/detect/findingsDataset.ts';
import { FINDINGS_OCSF_VIEW, TUNNEL_SESSIONS_OCSF_VIEW } from '../../lib/analytics/ocsf/ocsfViews.ts';

const { template, stack } = synthApp({
  context: { detections: '{"rules":{"off_hours":{"time_zone":"Europe/Berlin"}}}' },
});
const detectFn = stack.getLogicalId(stack.detections.fn.node.defaultChild as never);

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown };
function statementsOf(roleLogicalPrefix: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.entries(policies)
    .filter(([id]) => id.startsWith(roleLogicalPrefix))
    .flatMap(
      ([, p]) =>
        (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
          .Statement,
    );
}

describe('Detections in the stack', () => {
  it('schedules the detect function', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [detectFn, 'Arn'] } })]),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('detection rules'),
      Environment: {
        Variables: Match.objectLike({
          WORKGROUP: 'tunnel-archiver',
          DATABASE: 'tunnel_archive',
          DETECTION_SETTINGS: '{"rules":{"off_hours":{"time_zone":"Europe/Berlin"}}}',
        }),
      },
    });
  });

  it("has the Glue table for findings with the dataset's columns, and both OCSF views", () => {
    template.hasResourceProperties('AWS::Glue::Table', {
      TableInput: Match.objectLike({
        Name: FINDINGS_TABLE,
        StorageDescriptor: Match.objectLike({
          Location: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['/findings/'])]) }),
          Columns: FINDINGS_COLUMNS.map((c) => ({ Name: c.name, Type: c.athenaType })),
        }),
      }),
    });
    for (const name of [TUNNEL_SESSIONS_OCSF_VIEW, FINDINGS_OCSF_VIEW]) {
      template.hasResourceProperties('AWS::Glue::Table', {
        TableInput: Match.objectLike({ Name: name, TableType: 'VIRTUAL_VIEW' }),
      });
    }
  });

  it('scopes the detect role to the workgroup, the tables, the results bucket and its state items', () => {
    const role = stack
      .getLogicalId(stack.detections.fn.role?.node.defaultChild as never)
      .replace(/Role.*$/, '');
    const statements = statementsOf(role);
    const bySid = (sid: string) => statements.find((s) => s.Sid === sid);
    expect(JSON.stringify(bySid('AthenaInWorkgroup')?.Resource)).toContain(':workgroup/tunnel-archiver');
    const glue = JSON.stringify(bySid('GlueArchiveTables')?.Resource);
    expect(glue).toContain('table/tunnel_archive/tunnel_sessions');
    expect(glue).toContain(`table/tunnel_archive/${FINDINGS_TABLE}`);
    expect(glue).not.toContain('*');
    expect(JSON.stringify(bySid('AthenaResults')?.Resource)).toContain('/results/*');
    expect(bySid('StateItems3')?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['FINDING#*', 'PART#findings#*', 'META'] },
    });
    for (const s of statements) {
      const actions = [s.Action].flat();
      expect(
        actions.some((a) => a.endsWith('*')),
        JSON.stringify(s),
      ).toBe(false);
      // Deletes only of staged files the committer knows are unlisted; never of data.
      if (actions.includes('s3:DeleteObject')) expect(JSON.stringify(s.Resource)).toContain('_staging/');
    }
  });

  it('publishes to its own topic, KMS-encrypted and TLS only', () => {
    const topic = stack.getLogicalId(stack.detections.topic.node.defaultChild as never);
    template.hasResourceProperties('AWS::SNS::Topic', {
      DisplayName: 'tunnel-archiver findings',
      KmsMasterKeyId: Match.anyValue(),
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic }],
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      }),
    });
  });

  it('points the snapshot function at the findings topic (its publishing runs in the bundle test)', () => {
    const topic = { Ref: stack.getLogicalId(stack.detections.topic.node.defaultChild as never) };
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('Snapshots the live'),
      Environment: { Variables: Match.objectLike({ FINDINGS_TOPIC_ARN: topic }) },
    });
  });
});

describe('the detections context', () => {
  it('is checked against the rules at synth: an unknown setting fails with its name', () => {
    expect(() =>
      synthApp({ context: { detections: { rules: { off_hours: { timezone: 'UTC' } } } } }),
    ).toThrow(/rule 'off_hours' has no setting 'timezone'/);
  });
});
