import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { iamStatements, propsOf, resourceSuffix, synthApp } from '../../devkit/infra/testApp.ts';
import {
  INTEGRITY_ENV,
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
} from '../../functions/shared/telemetryNames.ts';
import {
  CHECKSUM_REPORTS_SCHEDULE,
  DEFAULT_VERIFY_SCHEDULE,
} from '../../infra/constructs/archiveIntegrity.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { CHECKSUM_REPORTS_PREFIX } from '../../lib/integrity/verify/checksumJobs.ts';

const STATE_DIR = fileURLToPath(new URL('../../lib/archive/state/', import.meta.url));

const { stack, template } = synthApp();
const logicalId = (c: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(c.node.defaultChild as Parameters<typeof stack.getLogicalId>[0]);

describe('ArchiveIntegrity', () => {
  it('creates an asymmetric P-256 signing key, kept when the stack is deleted, that the function may only sign with', () => {
    template.hasResource('AWS::KMS::Key', {
      Properties: Match.objectLike({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    const kms = iamStatements(template).filter((s) => s.actions.some((a) => a.startsWith('kms:')));
    const keyId = logicalId(stack.integrity.signingKey);
    const onSigningKey = kms.filter((s) => JSON.stringify(s.resources).includes(keyId));
    expect(onSigningKey.flatMap((s) => s.actions).sort()).toEqual(['kms:GetPublicKey', 'kms:Sign']);
  });

  it('generates the token-key secret, kept when the stack is deleted, and hands both keys to the function', () => {
    template.hasResource('AWS::SecretsManager::Secret', {
      Properties: Match.objectLike({
        GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true }),
      }),
      DeletionPolicy: 'Retain',
    });
    // Per function: the archiver signs and hashes; the snapshot function hashes with the same key, never signs.
    expect(propsOf({ stack, template }, stack.archiver.fn).Environment?.Variables).toMatchObject({
      [INTEGRITY_ENV.digestKeyId]: { 'Fn::GetAtt': [logicalId(stack.integrity.signingKey), 'Arn'] },
      [INTEGRITY_ENV.tokenKeySecretId]: { Ref: logicalId(stack.integrity.tokenKey) },
    });
    const snapshotEnv = propsOf({ stack, template }, stack.snapshots.fn).Environment?.Variables ?? {};
    expect(snapshotEnv).toMatchObject({ TOKEN_KEY_SECRET_ID: { Ref: logicalId(stack.integrity.tokenKey) } });
    expect(snapshotEnv).not.toHaveProperty(INTEGRITY_ENV.digestKeyId);
  });

  it('denies, to every principal, any write without If-None-Match under every prefix the chain covers and digests/', () => {
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy')).find((p) =>
      JSON.stringify(p).includes('DenyOverwriteOfPublishedObjects'),
    );
    const statements = (policy?.Properties.PolicyDocument.Statement ?? []) as Record<string, unknown>[];
    const statement = statements.find((s) => s.Sid === 'DenyOverwriteOfPublishedObjects') as Record<
      string,
      unknown
    >;
    expect(statement).toMatchObject({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:PutObject',
      Condition: { Null: { 's3:if-none-match': 'true' } },
    });
    const expected = [...digestKeys.listedPrefixes, digestKeys.prefix].map((p) => `/${p}*`).sort();
    expect(expected).toContain(`/${archiveKeys.findingsPrefix}*`);
    expect((statement.Resource as unknown[]).map(resourceSuffix).sort()).toEqual(expected);
    const doc = readFileSync(new URL('../../docs/integrity.md', import.meta.url), 'utf8');
    const named =
      /refuses every write under ((?:`[a-z]+\/`(?:, | and )?)+)/.exec(doc.replace(/\s+/g, ' '))?.[1] ?? '';
    expect([...named.matchAll(/`([a-z]+\/)`/g)].map((m) => `/${m[1]}*`).sort()).toEqual(expected);
  });

  it('grants the function reads and conditional writes on digests/, and nothing it never calls', () => {
    const statements = iamStatements(template);
    const archiverRole = stack.getLogicalId(
      stack.archiver.fn.role?.node.defaultChild as Parameters<typeof stack.getLogicalId>[0],
    );
    const onDigests = (s: (typeof statements)[number]) =>
      s.resources.some((r) => resourceSuffix(r) === '/digests/*');
    const digests = iamStatements(template, archiverRole).filter(onDigests);
    expect(digests.flatMap((s) => s.actions).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
    // Every other role reads digests/ at most: only the archiver writes the chain.
    const allOnDigests = statements.filter(onDigests).flatMap((s) => s.actions);
    expect(allOnDigests.filter((a) => a !== 's3:GetObject').sort()).toEqual(['s3:PutObject']);
    const actions = statements.flatMap((s) => s.actions);
    // DeleteItem only with a condition to ACTIVE# chunk items (tunnelArchiverStack.test.ts checks it).
    expect(
      statements.filter((s) => s.actions.includes('dynamodb:DeleteItem') && s.condition === undefined),
    ).toEqual([]);
    for (const unused of [
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'dynamodb:DescribeTable',
      'secretsmanager:DescribeSecret',
    ])
      expect(actions).not.toContain(unused);
  });

  it('grants on the state table exactly the DynamoDB calls lib/archive/state/ sends (table set-up aside)', async () => {
    const sent = new Set<string>();
    for (const file of await readdir(STATE_DIR)) {
      const source = await readFile(join(STATE_DIR, file), 'utf8');
      for (const m of source.matchAll(/new (\w+)Command\(/g)) sent.add(`dynamodb:${m[1]}`);
    }
    // The stack creates the table (point-in-time recovery on); only the CLI creates it on first use, asks
    // whether it exists and turns its point-in-time recovery on (lib/archive/state/ensureStateTable.ts).
    for (const setUp of [
      'dynamodb:CreateTable',
      'dynamodb:DescribeTable',
      'dynamodb:UpdateContinuousBackups',
    ])
      sent.delete(setUp);
    const granted = new Set(
      iamStatements(template)
        .flatMap((s) => s.actions)
        .filter((a) => a.startsWith('dynamodb:')),
    );
    expect([...sent].sort()).toEqual([...granted].sort());
  });

  it('verifies weekly with {"verify": true}, retries and a dead-letter queue, and alarms on VerifyFailures', () => {
    // The verify rule itself, by its logical id, and aimed at the archiver.
    const rule = propsOf({ stack, template }, stack.integrity.verifyRule) as {
      ScheduleExpression: string;
      Targets: unknown[];
    };
    expect(rule.ScheduleExpression).toBe(DEFAULT_VERIFY_SCHEDULE);
    expect(rule.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [logicalId(stack.archiver.fn), 'Arn'] },
        Input: JSON.stringify({ verify: true }),
        RetryPolicy: expect.objectContaining({ MaximumRetryAttempts: 2 }),
        DeadLetterConfig: expect.objectContaining({ Arn: expect.anything() }),
      }),
    ]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.VerifyFailures,
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      AlarmActions: [{ Ref: logicalId(stack.alarms.topic) }],
    });
  });

  it('gives S3 Batch Operations a role for the checksum jobs, and the function only what starting them needs', () => {
    const roleId = logicalId(stack.integrity.checksumJobRole);
    const role = template.toJSON().Resources[roleId] as {
      Properties: { AssumeRolePolicyDocument: { Statement: { Principal: unknown; Action: string }[] } };
    };
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'batchoperations.s3.amazonaws.com' },
        Action: 'sts:AssumeRole',
      }),
    ]);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: {
        Roles: { Ref: string }[];
        PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] };
      };
    }[];
    const ofJobRole = policies
      .filter((p) => p.Properties.Roles.some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    const writes = ofJobRole.filter((st) => [st.Action].flat().includes('s3:PutObject'));
    // Reports go under their own prefix only: not one the chain covers, so never write-once, never listed.
    expect(writes.map((st) => resourceSuffix(st.Resource))).toEqual([`/${CHECKSUM_REPORTS_PREFIX}*`]);
    for (const p of digestKeys.writeOncePrefixes) expect(CHECKSUM_REPORTS_PREFIX.startsWith(p)).toBe(false);
    expect(ofJobRole.flatMap((st) => [st.Action].flat()).sort()).toEqual([
      's3:GetBucketLocation',
      's3:GetObject',
      's3:GetObjectVersion',
      's3:ListBucket',
      's3:ListBucketVersions',
      's3:PutObject',
    ]);

    const statements = iamStatements(template);
    expect(statements).toContainEqual(
      expect.objectContaining({ actions: ['s3:CreateJob', 's3:DescribeJob'], resources: ['*'] }),
    );
    expect(statements).toContainEqual({
      actions: ['iam:PassRole'],
      resources: [{ 'Fn::GetAtt': [roleId, 'Arn'] }],
      effect: 'Allow',
      condition: { StringEquals: { 'iam:PassedToService': 'batchoperations.s3.amazonaws.com' } },
    });
    const env = (
      propsOf({ stack, template }, stack.archiver.fn) as {
        Environment: { Variables: Record<string, unknown> };
      }
    ).Environment.Variables;
    expect(env[INTEGRITY_ENV.checksumJobRoleArn]).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });

    const rule = propsOf({ stack, template }, stack.integrity.checksumReportsRule) as {
      ScheduleExpression: string;
      Targets: { Input: string }[];
    };
    expect(rule.ScheduleExpression).toBe(CHECKSUM_REPORTS_SCHEDULE);
    expect(rule.Targets.map((t) => JSON.parse(t.Input))).toEqual([{ checksumReports: true }]);
  });
});
