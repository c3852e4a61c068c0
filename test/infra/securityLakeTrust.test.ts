import { readFileSync } from 'node:fs';
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, type CfnTemplate, resolver } from '../../devkit/infra/templateArns.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { TemplatePolicies } from './roleAccess.ts';

/** The lake in an account of its own (a delegated Security Lake administrator's), as is usual. */
const LAKE_ACCOUNT = '210987654321';
const EXTERNAL_ID = 'external-sessions';
const SOURCE = {
  cls: 'sessions',
  bucket: 'aws-security-data-lake-eu-west-1-abcdef',
  prefix: 'ext/tunnel-archiver-sessions/',
  roleArn: `arn:aws:iam::${LAKE_ACCOUNT}:role/AmazonSecurityLake-Provider-tunnel-archiver-sessions-eu-west-1`,
  externalIdSecret: 'tunnel-archiver/lake-external-id-sessions',
};

const { stack, template } = synthApp({ context: { securityLake: JSON.stringify({ sources: [SOURCE] }) } });
const json = template.toJSON() as CfnTemplate & { Outputs: Record<string, { Value: unknown }> };
const policies = new TemplatePolicies(json);
const lake = stack.securityLake;
if (lake === undefined) throw new Error('the securityLake context made no export');
const lakeRole = policies.roleOf(stack.getLogicalId(lake.fn.node.defaultChild as CfnElement));
const archiverRole = policies.roleOf(stack.getLogicalId(stack.archiver.fn.node.defaultChild as CfnElement));
const outputId = Object.keys(json.Outputs).find((k) => k.startsWith('SecurityLakeFunctionRoleArn'));

/** The trust policy docs/security-lake.md gives, its placeholders filled as a team fills them. */
function documentedTrust(functionRoleArn: string): unknown {
  const doc = readFileSync(new URL('../../docs/security-lake.md', import.meta.url), 'utf8');
  const block = [...doc.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((b) => b.includes('sts:ExternalId'));
  if (block === undefined) throw new Error('docs/security-lake.md gives no trust policy');
  return JSON.parse(
    block
      .replaceAll('<stack account>', ACCOUNT)
      .replaceAll('<FunctionRoleArn>', functionRoleArn)
      .replaceAll("<the source's external id>", EXTERNAL_ID),
  );
}

/** Whether `roleId` (its template policies, plus `extra` an attacker added) may assume the provider role. */
async function mayAssume(roleId: string, externalId: string | undefined, extra = false): Promise<string> {
  const functionRoleArn = String(resolver(json)(json.Outputs[outputId ?? '']?.Value));
  const identity = [
    ...policies.identityPolicies(roleId),
    ...(extra
      ? [
          {
            name: 'added',
            policy: {
              Version: '2012-10-17',
              Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: '*' }],
            },
          },
        ]
      : []),
  ];
  const simulation = {
    identityPolicies: identity,
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    resourcePolicy: documentedTrust(functionRoleArn),
    request: {
      action: 'sts:AssumeRole',
      principal: policies.roleArn(roleId),
      resource: { resource: SOURCE.roleArn, accountId: LAKE_ACCOUNT },
      contextVariables: {
        'aws:PrincipalArn': policies.roleArn(roleId),
        'aws:PrincipalAccount': ACCOUNT,
        ...(externalId === undefined ? {} : { 'sts:ExternalId': externalId }),
      },
    },
  } as Simulation;
  const r = await runSimulation(simulation, {});
  if (r.resultType === 'error') throw new Error(JSON.stringify(r.errors).slice(0, 400));
  return r.overallResult;
}

describe('the provider role trust policy docs/security-lake.md gives', () => {
  it('names the role of the stack output SecurityLakeFunctionRoleArn, the export’s own', () => {
    expect(outputId).toBeDefined();
    expect(String(resolver(json)(json.Outputs[outputId ?? '']?.Value))).toBe(policies.roleArn(lakeRole));
  });

  it('lets the export’s role assume the provider role with the external id', async () => {
    expect(await mayAssume(lakeRole, EXTERNAL_ID)).toBe('Allowed');
  });

  it('refuses the export’s role without the external id', async () => {
    expect(await mayAssume(lakeRole, undefined)).not.toBe('Allowed');
  });

  it('refuses every other role of the stack, even one granted sts:AssumeRole on * that knows the external id', async () => {
    const others = policies
      .resources('AWS::IAM::Role')
      .map(([id]) => id)
      .filter((id) => id !== lakeRole);
    expect(others).toContain(archiverRole);
    for (const id of others) expect(await mayAssume(id, EXTERNAL_ID, true), id).not.toBe('Allowed');
  });
});

describe('the securityLake context', () => {
  it.each([
    ['a wildcard role', { roleArn: `arn:aws:iam::${LAKE_ACCOUNT}:role/*` }, /roleArn/],
    ['a role pattern', { roleArn: `arn:aws:iam::${LAKE_ACCOUNT}:role/AmazonSecurityLake-*` }, /roleArn/],
    ['an external id in plain text', { externalId: 'secret-value' }, /externalIdSecret/],
  ])('refuses %s at synth, naming it', (_what, change, message) => {
    expect(() =>
      synthApp({ context: { securityLake: JSON.stringify({ sources: [{ ...SOURCE, ...change }] }) } }),
    ).toThrow(message);
  });

  it('puts no external id in the function’s environment, only the secret’s name, which its role may read', () => {
    const env = JSON.stringify(
      json.Resources[stack.getLogicalId(lake.fn.node.defaultChild as CfnElement)]?.Properties?.Environment,
    );
    expect(env).not.toContain(EXTERNAL_ID);
    expect(env).toContain(SOURCE.externalIdSecret);
    const reads = policies
      .identityPolicies(lakeRole)
      .flatMap((p) =>
        (p.policy.Statement as { Sid?: string; Resource?: unknown }[]).filter(
          (s) => s.Sid === 'ReadExternalIds',
        ),
      );
    expect(JSON.stringify(reads)).toContain(`secret:${SOURCE.externalIdSecret}-??????`);
  });
});
