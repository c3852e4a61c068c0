import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, type CfnTemplate, REGION } from '../../devkit/infra/templateArns.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { GUARDED_BUCKET_ACTIONS } from '../../infra/constructs/archiveIntegrity.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';
import { digestKeys } from '../../lib/archive/digest/digestKeys.ts';
import { LAKE_CONTEXT } from './lakeSource.ts';
import { type Access, refusal, TemplatePolicies } from './roleAccess.ts';

/**
 * What a compromised function could try with its role, simulated against the synthesized template (identity
 * policies, the bucket policy and the signing key's policy, with the conditions IAM evaluates): each call
 * must be refused for every role of the stack but the ones whose job it is.
 */
const { stack, template } = synthApp({ context: LAKE_CONTEXT });
const policies = new TemplatePolicies(template.toJSON() as CfnTemplate);
const idOf = (c: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(c.node.defaultChild as CfnElement);
const roleOfFn = (c: { node: { defaultChild?: unknown } }) => policies.roleOf(idOf(c));

const ROLES = {
  archiver: roleOfFn(stack.archiver.fn),
  snapshot: roleOfFn(stack.snapshots.fn),
  detect: roleOfFn(stack.detections.fn),
  verifyJob: roleOfFn(stack.verifyJob.fn),
  fanoutMachine: policies.roleOf(idOf(stack.fanout.stateMachine)),
  verifyMachine: policies.roleOf(idOf(stack.verifyJob.stateMachine)),
  checksumJobs: idOf(stack.integrity.checksumJobRole),
} as const;
type Named = keyof typeof ROLES;
/** Every role of the template, named where the test knows it. */
const allRoles = policies.resources('AWS::IAM::Role').map(([id]) => id);
const nameOf = (roleId: string) =>
  (Object.entries(ROLES).find(([, id]) => id === roleId)?.[0] as Named | undefined) ?? roleId;

const bucket = `ta-${idOf(stack.buckets.archive).toLowerCase()}`;
const object = (key: string) => `arn:aws:s3:::${bucket}/${key}`;
const DT = '2026-11-20';
const NAME = '20261120T101500Z-0f3a9c1d-0001.parquet';

/** Roles the IAM simulation allows `access` (as `nameOf` names them), sorted. */
async function allowed(access: Access): Promise<string[]> {
  const out: string[] = [];
  for (const role of allRoles)
    if ((await refusal(policies, role, access)) === undefined) out.push(nameOf(role));
  return out.sort();
}

/** The role's own policies plus one statement granting everything: what IAM alone could ever give it. */
const grantedEverything = (roleId: string) => [
  ...policies.identityPolicies(roleId),
  { name: 'AttackerGrant', policy: { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] } },
];

describe('one writer per prefix: who may PutObject where', () => {
  // Each key a dataset or its staging area holds, and the only roles that may write it.
  const writers: [key: string, roles: Named[]][] = [
    [archiveKeys.stagingOf('history', '0f3a9c1d', DT, NAME), ['archiver']],
    [archiveKeys.stagingOf('active', '0f3a9c1d', DT, NAME), ['archiver', 'snapshot']],
    [archiveKeys.stagingOf('findings', '0f3a9c1d', DT, NAME), ['detect', 'snapshot']],
    [`${archiveKeys.stagingAreas.fanout}orchestration-1/items/${DT}-p0-r0.json`, ['archiver']],
    [`${archiveKeys.stagingAreas.fanout}orchestration-1/items.json`, ['archiver']],
    [`${archiveKeys.stagingAreas.walks}${DT}.ids.gz`, ['archiver']],
    [`${archiveKeys.stagingAreas.fanoutResults}run-1/SUCCEEDED_0.json`, ['fanoutMachine']],
    [archiveKeys.dataOf('history', DT, NAME), ['archiver']],
    [archiveKeys.dataOf('active', DT, NAME), ['archiver', 'snapshot']],
    [archiveKeys.dataOf('findings', DT, NAME), ['archiver', 'detect', 'snapshot']],
    [archiveKeys.quarantine(DT, 'x'), ['archiver']],
    [digestKeys.digest(1), ['archiver']],
    [`${archiveKeys.verifyJobsPrefix}map-results/run-1/SUCCEEDED_0.json`, ['verifyJob', 'verifyMachine']],
  ];

  it.each(writers)('%s: only %j', async (key, roles) => {
    // Write-once keys are written with If-None-Match (the bucket policy refuses any other write there).
    const access = { action: 's3:PutObject', resource: object(key), call: `PutObject ${key}` };
    const conditional = { ...access, context: { 's3:if-none-match': '*' } };
    expect(await allowed(conditional)).toEqual([...roles].sort());
  });

  it('lets only the archiver write history staging (what is signed is staged there)', async () => {
    const key = archiveKeys.stagingOf('history', '0f3a9c1d', DT, NAME);
    const put = { action: 's3:PutObject', resource: object(key), call: `PutObject ${key}` };
    expect(await allowed(put)).toEqual(['archiver']);
    // Nor may another role delete it (what a removal would take), or read it but S3 Batch Operations,
    // which computes the weekly verify's checksums over the bucket's objects.
    expect(await allowed({ ...put, action: 's3:DeleteObject' })).toEqual(['archiver']);
    expect(await allowed({ ...put, action: 's3:GetObject' })).toEqual(['archiver', 'checksumJobs']);
  });

  it('gives the Distributed Maps their item files and result prefix only', async () => {
    const elsewhere = [
      archiveKeys.dataOf('history', DT, NAME),
      archiveKeys.stagingOf('history', '0f3a9c1d', DT, NAME),
      `${archiveKeys.stagingAreas.fanout}orchestration-1/items/${DT}-p0-r0.json`,
      digestKeys.digest(1),
    ];
    for (const machine of [ROLES.fanoutMachine, ROLES.verifyMachine])
      for (const key of elsewhere)
        for (const action of ['s3:GetObject', 's3:PutObject'])
          expect(
            await refusal(policies, machine, { action, resource: object(key), call: key }),
            `${nameOf(machine)} ${action} ${key}`,
          ).toBeDefined();
    // What they do read: their own plan's items.
    const items = { action: 's3:GetObject', call: 'ItemReader' };
    expect(
      await refusal(policies, ROLES.fanoutMachine, {
        ...items,
        resource: object(`${archiveKeys.stagingAreas.fanout}o-1/items.json`),
      }),
    ).toBeUndefined();
    expect(
      await refusal(policies, ROLES.verifyMachine, {
        ...items,
        resource: object(`${archiveKeys.verifyJobsPrefix}audit-1/items.json`),
      }),
    ).toBeUndefined();
  });
});

describe('nothing deletes a write-once object', () => {
  const keys = [
    archiveKeys.dataOf('history', DT, NAME),
    archiveKeys.dataOf('active', DT, NAME),
    archiveKeys.dataOf('findings', DT, NAME),
    archiveKeys.quarantine(DT, 'x'),
    digestKeys.digest(1),
    digestKeys.publicKeyPem,
  ];

  it('covers every write-once prefix', () => {
    for (const p of digestKeys.writeOncePrefixes)
      expect(
        keys.some((k) => k.startsWith(p)),
        p,
      ).toBe(true);
  });

  it.each(keys)('%s: no role of the stack may delete it or a version of it', async (key) => {
    for (const action of ['s3:DeleteObject', 's3:DeleteObjectVersion'])
      expect(await allowed({ action, resource: object(key), call: `${action} ${key}` })).toEqual([]);
  });

  it.each(keys)('%s: the bucket policy refuses it even to a role IAM grants everything', async (key) => {
    for (const role of allRoles)
      for (const action of ['s3:DeleteObject', 's3:DeleteObjectVersion'])
        expect(
          await refusal(
            policies,
            role,
            { action, resource: object(key), call: action },
            grantedEverything(role),
          ),
          `${nameOf(role)} ${action}`,
        ).toBe('explicitly denied');
  });

  it("refuses every role a change of the bucket's lifecycle or policy, which could expire or allow deletes", async () => {
    for (const role of allRoles)
      for (const action of GUARDED_BUCKET_ACTIONS)
        expect(
          await refusal(
            policies,
            role,
            { action, resource: `arn:aws:s3:::${bucket}`, call: action },
            grantedEverything(role),
          ),
          `${nameOf(role)} ${action}`,
        ).toBe('explicitly denied');
  });

  it("lets CloudFormation's execution role update the policy and lifecycle, and delete nothing", async () => {
    const cfn = `cdk-hnb659fds-cfn-exec-role-${ACCOUNT}-${REGION}`;
    const everything = [
      { name: 'Admin', policy: { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] } },
    ];
    const at = (action: string, resource: string) =>
      refusal(policies, cfn, { action, resource, call: action }, everything);
    expect(await at('s3:PutBucketPolicy', `arn:aws:s3:::${bucket}`)).toBeUndefined();
    expect(await at('s3:PutLifecycleConfiguration', `arn:aws:s3:::${bucket}`)).toBeUndefined();
    expect(await at('s3:DeleteObject', object(archiveKeys.dataOf('history', DT, NAME)))).toBe(
      'explicitly denied',
    );
  });
});

describe('the signing key signs only for the archiver', () => {
  const sign = {
    action: 'kms:Sign',
    resource: `arn:aws:kms:${REGION}:${ACCOUNT}:key/key-${idOf(stack.integrity.signingKey)}`,
    call: 'Sign',
  };

  it('allows kms:Sign to the archiver role (its function and the fan-out) and no other role', async () => {
    expect(await allowed(sign)).toEqual(['archiver']);
  });

  it('refuses kms:Sign to every other role even when IAM grants it kms:Sign on *', async () => {
    for (const role of allRoles.filter((r) => r !== ROLES.archiver))
      expect(await refusal(policies, role, sign, grantedEverything(role)), nameOf(role)).toBe(
        'explicitly denied',
      );
    // Any principal of the account, not only the stack's roles.
    const someone = 'an-admin';
    const everything = [
      { name: 'Admin', policy: { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] } },
    ];
    expect(await refusal(policies, someone, sign, everything)).toBe('explicitly denied');
  });
});

describe("state items outside a role's leading keys", () => {
  const table = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${idOf(stack.table)}`;
  const item = (action: string, pk: string): Access => ({
    action,
    resource: table,
    call: `${action} ${pk}`,
    context: { 'dynamodb:LeadingKeys': [pk] },
  });
  // The history manifests, a day's state and the lease: what sealing and publishing history trust.
  const archiverOnly = [`PART#${DT}`, `DAY#${DT}`, 'LEASE'];

  it.each(archiverOnly)('%s: only the archiver may write or delete it', async (pk) => {
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'])
      expect(await allowed(item(action, pk)), action).toEqual(
        action === 'dynamodb:PutItem' ? ['archiver'] : [],
      );
  });

  it('keeps the snapshot and detect roles to their own items, which they may write', async () => {
    expect(await allowed(item('dynamodb:PutItem', 'ACTIVE'))).toEqual(['archiver', 'snapshot']);
    expect(await allowed(item('dynamodb:PutItem', `PART#active#${DT}`))).toEqual(['archiver', 'snapshot']);
    expect(await allowed(item('dynamodb:PutItem', `PART#findings#${DT}`))).toEqual([
      'archiver',
      'detect',
      'snapshot',
    ]);
  });
});
