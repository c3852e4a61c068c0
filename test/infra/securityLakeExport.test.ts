import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { iamStatements, nagViolations, staleAcknowledgements, synthApp } from '../../devkit/infra/testApp.ts';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';

const ROLE = (cls: string) =>
  `arn:aws:iam::123456789012:role/AmazonSecurityLake-Provider-tunnel-archiver-${cls}-eu-west-1`;
const LAKE = {
  sources: ['sessions', 'findings'].map((cls) => ({
    cls,
    bucket: 'aws-security-data-lake-eu-west-1-abcdef',
    prefix: `ext/tunnel-archiver-${cls}/`,
    roleArn: ROLE(cls),
    externalIdSecret: `tunnel-archiver/lake-external-id-${cls}`,
  })),
  kmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555',
};

const actions = (statements: { Action: unknown }[]) =>
  statements.flatMap((s) => [s.Action].flat() as string[]);

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
      Environment: {
        Variables: Match.objectLike({
          SECURITY_LAKE_SOURCES: JSON.stringify(LAKE.sources),
          SECURITY_LAKE_SETTLE_HOURS: '6',
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

  it("assumes only the sources' provider roles and reads the archive only (its data and digest chain)", () => {
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
    // The lake's writes are signed by the provider role: the function's own role never uses the lake key.
    expect(actions(statements).filter((a) => a.startsWith('kms:'))).toEqual([]);
    expect(bySid('ReadDigestChain')?.Action).toBe('s3:GetObject');
    expect(bySid('LakeCursors')?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LAKE#*'] },
    });
    expect(bySid('ListArchive')?.Condition).toEqual({ StringLike: { 's3:prefix': ['history/*'] } });
    const all = actions(statements);
    expect([...new Set(all.filter((a) => a.startsWith('s3:')))].sort()).toEqual([
      's3:GetObject',
      's3:ListBucket',
    ]);
    expect(all.some((a) => a.endsWith('*'))).toBe(false);
    expect(iamStatements(on.template).length).toBeGreaterThan(statements.length);
  });

  it("lets the provider roles of the stack's account use the lake key, through S3 only", () => {
    const policies = Object.values(
      on.template.findResources('AWS::IAM::Policy', {
        Properties: { PolicyDocument: { Statement: [Match.objectLike({ Sid: 'LakeKeyThroughS3' })] } },
      }),
    ) as { Condition?: string; Properties: { Roles: unknown[]; PolicyDocument: { Statement: unknown[] } } }[];
    expect(policies).toHaveLength(2);
    const roles = policies.flatMap((p) => p.Properties.Roles).map((r) => JSON.stringify(r));
    for (const cls of ['sessions', 'findings'])
      expect(
        roles.some((r) => r.includes(`AmazonSecurityLake-Provider-tunnel-archiver-${cls}-eu-west-1`)),
      ).toBe(true);
    for (const p of policies) {
      expect(p.Properties.PolicyDocument.Statement).toEqual([
        {
          Sid: 'LakeKeyThroughS3',
          Effect: 'Allow',
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: LAKE.kmsKeyArn,
          Condition: { StringEquals: { 'kms:ViaService': 's3.eu-west-1.amazonaws.com' } },
        },
      ]);
      // Deployed only where the role lives: the stack's account is the provider role's.
      expect(on.template.toJSON().Conditions[p.Condition ?? '']).toEqual({
        'Fn::Equals': [{ Ref: 'AWS::AccountId' }, '123456789012'],
      });
    }
    // Without a lake key, no policy touches a provider role.
    const plain = synthApp({ context: { securityLake: JSON.stringify({ sources: LAKE.sources }) } });
    expect(JSON.stringify(plain.template.toJSON())).not.toMatch(/LakeKeyThroughS3|kms:ViaService.*s3\./);
  });

  it('is given only variables the config spec holds, each naming the function among its readers', () => {
    const fn = on.stack.getLogicalId(on.stack.securityLake?.fn.node.defaultChild as never);
    const resource = on.template.toJSON().Resources[fn] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    const set = Object.keys(resource.Properties.Environment.Variables).filter(
      (v) => !v.startsWith('POWERTOOLS_') && !v.startsWith('AWS_') && v !== 'NODE_OPTIONS',
    );
    expect(set).toContain('SECURITY_LAKE_SOURCES');
    for (const variable of set)
      expect(
        SETTINGS.find((s) => s.env === variable)?.readBy as readonly string[] | undefined,
        variable,
      ).toContain('security-lake-export');
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
