import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { iamStatements, nagViolations, staleAcknowledgements, synthApp } from './testApp.ts';

const ROLE = (cls: string) =>
  `arn:aws:iam::123456789012:role/AmazonSecurityLake-Provider-tunnel-archiver-${cls}-eu-west-1`;
const LAKE = {
  sources: ['sessions', 'findings'].map((cls) => ({
    cls,
    bucket: 'aws-security-data-lake-eu-west-1-abcdef',
    prefix: `ext/tunnel-archiver-${cls}/`,
    roleArn: ROLE(cls),
    externalId: `ext-${cls}`,
  })),
  kmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555',
};

const off = synthApp();
const on = synthApp({ context: { securityLake: JSON.stringify(LAKE) } });

describe('the Security Lake export', () => {
  it('is off by default: no function, schedule or role for it', () => {
    expect(off.stack.securityLake).toBeUndefined();
    const ids = Object.keys(off.template.toJSON().Resources as object);
    expect(ids.filter((id) => id.startsWith('SecurityLake'))).toEqual([]);
    expect(JSON.stringify(off.template.toJSON())).not.toMatch(
      /AssumeLakeProviderRoles|SECURITY_LAKE_SOURCES/,
    );
  });

  it('with the securityLake context: an hourly function given the sources, and an alarm on a failed run', () => {
    const lake = on.stack.securityLake;
    expect(lake).toBeDefined();
    const fn = on.stack.getLogicalId(lake?.fn.node.defaultChild as never);
    on.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('Security Lake'),
      Architectures: ['x86_64'],
      ReservedConcurrentExecutions: 1,
      Environment: {
        Variables: Match.objectLike({
          SECURITY_LAKE_SOURCES: JSON.stringify(LAKE.sources),
          SETTLE_HOURS: '6',
        }),
      },
    });
    on.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [fn, 'Arn'] } })]),
    });
    on.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
      Threshold: 1,
      AlarmActions: Match.anyValue(),
    });
  });

  it("assumes only the sources' provider roles, reads the archive only, and uses the lake's key", () => {
    const role = on.stack.getLogicalId(on.stack.securityLake?.fn.role?.node.defaultChild as never);
    const policies = on.template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: role }] },
    });
    const statements = Object.values(policies).flatMap(
      (p) =>
        (
          p as {
            Properties: {
              PolicyDocument: {
                Statement: { Sid?: string; Action: unknown; Resource: unknown; Condition?: unknown }[];
              };
            };
          }
        ).Properties.PolicyDocument.Statement,
    );
    const bySid = (sid: string) => statements.find((s) => s.Sid === sid);
    const assume = bySid('AssumeLakeProviderRoles');
    expect(assume?.Action).toBe('sts:AssumeRole');
    expect([assume?.Resource].flat().sort()).toEqual([ROLE('findings'), ROLE('sessions')]);
    expect(bySid('LakeKey')).toMatchObject({ Resource: LAKE.kmsKeyArn });
    expect(bySid('LakeCursors')?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LAKE#*'] },
    });
    const actions = statements.flatMap((s) => [s.Action].flat() as string[]);
    expect(actions.filter((a) => a.startsWith('s3:')).sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(actions.some((a) => a.endsWith('*'))).toBe(false);
    expect(iamStatements(on.template).length).toBeGreaterThan(statements.length);
  });

  it('is cdk-nag clean, with no stale acknowledgement', () => {
    expect(nagViolations(on.app)).toEqual([]);
    expect(staleAcknowledgements(on.app)).toEqual([]);
  });

  it.each([
    [{ sources: [] }, /securityLake/],
    [{ sources: [{ ...LAKE.sources[0], prefix: 'tunnels/' }] }, /ext\/<source name>/],
    [{ sources: [LAKE.sources[0], LAKE.sources[0]] }, /one source per class/],
    [{ ...LAKE, kmsKeyArn: 'alias/lake' }, /KMS key ARN/],
  ])('rejects a bad securityLake context at synth (%#)', (context, message) => {
    expect(() => synthApp({ context: { securityLake: context } })).toThrow(message);
  });
});
