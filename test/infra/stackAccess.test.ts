import { createRequire } from 'node:module';
import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { type Reader, SETTINGS } from '../../lib/config/configSpec.ts';
import { refusal, refusals, TemplatePolicies } from './roleAccess.ts';
import { stateMachineNeeds } from './stateMachineNeeds.ts';
import { ACCOUNT, type CfnTemplate, REGION } from './templateArns.ts';
import { synthApp } from './testApp.ts';

const { stack, template } = synthApp();
const policies = new TemplatePolicies(template.toJSON() as CfnTemplate);
const idOf = (c: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(c.node.defaultChild as CfnElement);

const machineId = idOf(stack.fanout.stateMachine);
const machine = policies.resolved.Resources[machineId]?.Properties ?? {};
const asl = JSON.parse(String(machine.DefinitionString));
const needs = stateMachineNeeds(asl, {
  arn: `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${machineId}`,
  name: machineId,
  logging: machine.LoggingConfiguration !== undefined,
  tracing: (machine.TracingConfiguration as { Enabled?: boolean } | undefined)?.Enabled === true,
});

describe('the fan-out state machine', () => {
  it('is valid ASL for asl-validator', async () => {
    // CommonJS without types: a function of the definition.
    const aslValidator = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => {
      isValid: boolean;
      errorsText: (separator?: string) => string;
    };
    const { isValid, errorsText } = aslValidator(structuredClone(asl)); // it annotates what it reads
    expect(isValid, errorsText('\n')).toBe(true);
  });

  it('runs as a role that allows what its definition needs: the Lambda tasks and the map run', async () => {
    // Every kind of need is there (a definition read wrongly would need nothing and pass).
    expect(new Set(needs.map((n) => n.action))).toEqual(
      new Set([
        'lambda:InvokeFunction',
        'states:StartExecution',
        'states:DescribeExecution',
        'states:StopExecution',
        'states:RedriveExecution',
        's3:GetObject',
        's3:PutObject',
        's3:ListMultipartUploadParts',
        's3:AbortMultipartUpload',
        'logs:CreateLogDelivery',
        'logs:GetLogDelivery',
        'logs:UpdateLogDelivery',
        'logs:DeleteLogDelivery',
        'logs:ListLogDeliveries',
        'logs:PutResourcePolicy',
        'logs:DescribeResourcePolicies',
        'logs:DescribeLogGroups',
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        'xray:GetSamplingRules',
        'xray:GetSamplingTargets',
      ]),
    );
    expect(await refusals(policies, machineId, policies.roleOf(machineId), needs)).toEqual([]);
  });

  it('names the state machine, the state and the action when one grant is missing', async () => {
    const roleId = policies.roleOf(machineId);
    // The role without its Distributed Map policy's StartExecution statement.
    const identity = policies.identityPolicies(roleId).map((p) => ({
      name: p.name,
      policy: {
        ...p.policy,
        Statement: p.policy.Statement.filter((s) => s.Action !== 'states:StartExecution'),
      },
    }));
    const start = needs.find((n) => n.action === 'states:StartExecution');
    if (!start) throw new Error('no StartExecution need');
    expect(await refusal(policies, roleId, start, identity)).toBe('no statement allows it');
    expect(await refusal(policies, roleId, start)).toBeUndefined();
  });
});

describe('the archive bucket and the signing key, by their resource policies', () => {
  const archiverRole = policies.roleOf(idOf(stack.archiver.fn));
  const detectRole = policies.roleOf(idOf(stack.detections.fn));
  const archive = `arn:aws:s3:::ta-${idOf(stack.buckets.archive).toLowerCase()}`;
  const put = (key: string, ifNoneMatch?: string) => ({
    action: 's3:PutObject',
    resource: `${archive}/${key}`,
    call: `PutObject ${key}`,
    ...(ifNoneMatch ? { context: { 's3:if-none-match': ifNoneMatch } } : {}),
  });

  it.each([
    'history/dt=2026-01-01/a.parquet',
    'digests/00000001.json',
    'active/dt=2026-01-01/a.parquet',
    'quarantine/dt=2026-01-01/a.jsonl',
  ])('refuses the archiver a write of %s without If-None-Match, and allows it with one', async (key) => {
    expect(await refusal(policies, archiverRole, put(key))).toBe('explicitly denied');
    expect(await refusal(policies, archiverRole, put(key, '*'))).toBeUndefined();
  });

  it('lets the weekly verify replace reports/index.html (not write-once)', async () => {
    expect(await refusal(policies, archiverRole, put('reports/index.html'))).toBeUndefined();
  });

  it('lets the archiver sign with the digest key, and no other function', async () => {
    const key = idOf(stack.integrity.signingKey);
    const sign = {
      action: 'kms:Sign',
      resource: `arn:aws:kms:${REGION}:${ACCOUNT}:key/key-${key}`,
      call: 'Sign',
    };
    expect(await refusal(policies, archiverRole, sign)).toBeUndefined();
    expect(await refusal(policies, detectRole, sign)).toBe('no statement allows it');
  });
});

/**
 * Settings a function reads that have no default and that the stack leaves unset, each with the reason
 * it may stay unset. Any other setting a function reads without a default must be in its environment.
 */
const UNSET_BY_DESIGN: Record<string, string> = {
  TUNNEL_API_KEY:
    'The stack hands the key over in a secret (TUNNEL_API_KEY_SECRET_ID); a plain key is for the CLI.',
  AWS_ENDPOINT_URL_S3: 'An S3-compatible endpoint for local runs; in AWS the SDK finds S3 itself.',
  CODEC: "Unset means ZSTD on the Lambda's Node (node:zlib has zstd there): the default is the runtime's.",
  DETECTIONS_DIR: 'The rules are read from the copy bundled beside the handler unless this points elsewhere.',
};

describe('the environment the stack gives each function', () => {
  const functions: [Reader, string][] = [
    ['archive-history', idOf(stack.archiver.fn)],
    ['fanout', idOf(stack.fanout.fn)],
    ['snapshot-active', idOf(stack.snapshots.fn)],
    ['detect', idOf(stack.detections.fn)],
  ];
  it.each(functions)('sets every setting %s reads without a default', (reader, id) => {
    const env = (
      policies.resolved.Resources[id]?.Properties?.Environment as { Variables?: object } | undefined
    )?.Variables;
    const set = new Set(Object.keys(env ?? {}));
    const missing = SETTINGS.filter(
      (s) =>
        (s.readBy as readonly Reader[]).includes(reader) &&
        s.default === undefined &&
        !set.has(s.env) &&
        UNSET_BY_DESIGN[s.env] === undefined,
    ).map((s) => s.env);
    expect(missing).toEqual([]);
  });

  it('gives a reason only for settings that exist and that some function reads', () => {
    const read = new Set<string>(SETTINGS.filter((s) => s.readBy.some((r) => r !== 'cli')).map((s) => s.env));
    expect(Object.keys(UNSET_BY_DESIGN).filter((v) => !read.has(v))).toEqual([]);
  });
});
