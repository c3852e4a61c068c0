import { createRequire } from 'node:module';
import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../devkit/awsCallLog.ts';
import { ACCOUNT, type CfnTemplate, REGION } from '../../devkit/infra/templateArns.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { type Reader, SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { accessesOf } from './callAccesses.ts';
import { LAKE_CONTEXT, LAKE_EXTERNAL_ID, LAKE_SOURCE } from './lakeSource.ts';
import { refusal, refusals, TemplatePolicies } from './roleAccess.ts';
import { serviceNeeds } from './serviceNeeds.ts';
import { LOGGING_ACTIONS, stateMachineNeeds, TRACING_ACTIONS } from './stateMachineNeeds.ts';

/** Every opt-in on, so every function and role the stack can have is in the template. */
const { stack, template } = synthApp({ context: LAKE_CONTEXT });
const policies = new TemplatePolicies(template.toJSON() as CfnTemplate);
const idOf = (c: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(c.node.defaultChild as CfnElement);

/** A state machine of the template: its definition, and what it needs of its role. */
function machineOf(construct: { node: { defaultChild?: unknown } }) {
  const id = idOf(construct);
  const props = policies.resolved.Resources[id]?.Properties ?? {};
  const definition = JSON.parse(String(props.DefinitionString));
  const needs = stateMachineNeeds(definition, {
    arn: `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${id}`,
    name: id,
    logging: props.LoggingConfiguration !== undefined,
    tracing: (props.TracingConfiguration as { Enabled?: boolean } | undefined)?.Enabled === true,
  });
  return { id, asl: definition, needs };
}

/** asl-validator's verdict on a definition (CommonJS without types: a function of the definition). */
function aslErrors(definition: unknown): string | undefined {
  const aslValidator = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => {
    isValid: boolean;
    errorsText: (separator?: string) => string;
  };
  const { isValid, errorsText } = aslValidator(structuredClone(definition)); // it annotates what it reads
  return isValid ? undefined : errorsText('\n');
}

const { id: machineId, asl, needs } = machineOf(stack.fanout.stateMachine);

describe('the fan-out state machine', () => {
  it('is valid ASL for asl-validator', async () => {
    expect(aslErrors(asl)).toBeUndefined();
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
        ...LOGGING_ACTIONS,
        ...TRACING_ACTIONS,
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
    const map = Object.entries(asl.States as Record<string, { Type: string }>).find(
      ([, st]) => st.Type === 'Map',
    )?.[0];
    // The message a reader acts on: which state machine, which state, which action on what, and why.
    expect(await refusals(policies, machineId, roleId, needs, identity)).toEqual([
      `${machineId}: Map ${map} (child executions) needs states:StartExecution on ${start.resource} (no statement allows it)`,
    ]);
    expect(await refusal(policies, roleId, start)).toBeUndefined();
  });
});

describe('the verify job state machine', () => {
  const job = machineOf(stack.verifyJob.stateMachine);

  it('is valid ASL for asl-validator', () => {
    expect(aslErrors(job.asl)).toBeUndefined();
  });

  it('runs as a role that allows what its definition needs: the Lambda tasks, the map run, its items and results', async () => {
    for (const action of ['lambda:InvokeFunction', 'states:StartExecution', 's3:GetObject', 's3:PutObject'])
      expect(job.needs.map((n) => n.action)).toContain(action);
    expect(await refusals(policies, job.id, policies.roleOf(job.id), job.needs)).toEqual([]);
  });

  it('is started by nobody but a person: no schedule or rule targets it', () => {
    const targets = policies
      .resources('AWS::Events::Rule')
      .map(([, r]) => JSON.stringify((r.Properties as { Targets?: unknown } | undefined)?.Targets ?? []));
    expect(targets.filter((t) => t.includes(job.id))).toEqual([]);
  });
});

describe("the roles the stack's services run as", () => {
  const needs = serviceNeeds(policies);

  it('let the schedule start the fan-out state machine', async () => {
    const machineArn = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${machineId}`;
    const starts = [...needs.entries()].filter(([, n]) =>
      n.some(
        (a) => a.action === 'states:StartExecution' && a.resource === machineArn && a.call.startsWith('rule'),
      ),
    );
    expect(starts).toHaveLength(1);
    const [roleId, accesses] = starts[0] ?? ['', []];
    expect(roleId).not.toBe(policies.roleOf(machineId));
    expect(await refusals(policies, roleId, roleId, accesses)).toEqual([]);
  });

  it('allow what each service does as them, for every state machine and rule target of the template', async () => {
    const refused: string[] = [];
    for (const [roleId, accesses] of needs)
      refused.push(...(await refusals(policies, roleId, roleId, accesses)));
    expect(needs.size).toBeGreaterThanOrEqual(2);
    expect(refused).toEqual([]);
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

  it('refuses the archiver a read without TLS, which its role allows over TLS', async () => {
    const read = {
      action: 's3:GetObject',
      resource: `${archive}/history/dt=2026-01-01/a.parquet`,
      call: 'GetObject',
      context: { 'aws:SecureTransport': 'false' },
    };
    expect(await refusal(policies, archiverRole, read)).toBe('explicitly denied');
    expect(await refusal(policies, archiverRole, { ...read, context: {} })).toBeUndefined();
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
    // The key's own policy refuses it to every principal but the archiver's role (test/infra/attackerAccess.test.ts).
    expect(await refusal(policies, detectRole, sign)).toBe('explicitly denied');
  });
});

describe('a call of a function its role does not allow', () => {
  if (!stack.securityLake) throw new Error('the securityLake context made no Security Lake export');
  const envOf = (id: string) =>
    ((policies.resolved.Resources[id]?.Properties?.Environment as { Variables?: Record<string, string> })
      ?.Variables ?? {}) as Record<string, string>;
  const bare = (url: string | undefined) =>
    String(url)
      .replace(/^\w+:\/\//, '')
      .replace(/\/$/, '');
  // One call each function makes, named as the template names its resources.
  const cases: [string, string, RecordedCall][] = [
    [
      'archive-history',
      idOf(stack.archiver.fn),
      {
        client: 'KMSClient',
        command: 'SignCommand',
        input: { KeyId: envOf(idOf(stack.archiver.fn)).DIGEST_SIGNING_KEY_ID },
      },
    ],
    [
      'fanout',
      idOf(stack.fanout.fn),
      {
        client: 'S3Client',
        command: 'PutObjectCommand',
        input: {
          Bucket: bare(envOf(idOf(stack.fanout.fn)).ARCHIVE_DEST),
          Key: 'history/dt=2026-01-01/a.parquet',
          IfNoneMatch: '*',
        },
      },
    ],
    [
      'snapshot-active',
      idOf(stack.snapshots.fn),
      {
        client: 'DynamoDBClient',
        command: 'PutItemCommand',
        input: {
          TableName: bare(envOf(idOf(stack.snapshots.fn)).ARCHIVE_STATE),
          Item: { pk: 'ACTIVE#sessions' },
        },
      },
    ],
    [
      'detect',
      idOf(stack.detections.fn),
      {
        client: 'SNSClient',
        command: 'PublishCommand',
        input: { TopicArn: envOf(idOf(stack.detections.fn)).FINDINGS_TOPIC_ARN },
      },
    ],
    [
      'verify-job',
      idOf(stack.verifyJob.fn),
      {
        client: 'S3Client',
        command: 'GetObjectCommand',
        input: { Bucket: bare(envOf(idOf(stack.verifyJob.fn)).ARCHIVE_DEST), Key: 'digests/0000000001.json' },
      },
    ],
    [
      'security-lake-export',
      idOf(stack.securityLake.fn),
      {
        client: 'STSClient',
        command: 'AssumeRoleCommand',
        input: { RoleArn: LAKE_SOURCE.roleArn, ExternalId: LAKE_EXTERNAL_ID },
      },
    ],
  ];

  it.each(cases)(
    '%s: names the function, the call and the action its role lacks',
    async (_name, fnId, call) => {
      const roleId = policies.roleOf(fnId);
      const accesses = await accessesOf(call, new Map(), policies);
      const [first] = accesses;
      if (!first) throw new Error('the call needs nothing');
      // The role as deployed allows the call.
      expect(await refusals(policies, fnId, roleId, accesses)).toEqual([]);
      // The role without that action, wherever it is granted.
      const identity = policies.identityPolicies(roleId).map((p) => ({
        name: p.name,
        policy: {
          ...p.policy,
          Statement: p.policy.Statement.map((s) => ({
            ...s,
            Action: [s.Action].flat().filter((a) => a !== first.action),
          })).filter((s) => s.Action.length > 0),
        },
      }));
      const refused = await refusals(policies, fnId, roleId, [first], identity);
      expect(refused).toEqual([expect.stringContaining(`${fnId}: ${first.call} needs ${first.action} on `)]);
      expect(refused[0]).toContain(call.command.replace(/Command$/, ''));
    },
  );
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
  MAX_PAGES_PER_DAY:
    'Unset, the cap follows from the page size the server echoes, up to the largest day the archive proves (pageCap); a team sets it only to cap lower.',
};

/** Settings one function reads that the stack leaves unset for it alone, each with the reason. */
const UNSET_FOR: Partial<Record<Reader, Record<string, string>>> = {
  'security-lake-export': {
    DETECTION_SETTINGS:
      "The export takes the rules' names and ATT&CK entries only; the overrides (thresholds, allowlists) decide which findings the detect and snapshot functions raise, and the export reads those from findings/.",
  },
};

describe('the environment the stack gives each function', () => {
  if (!stack.securityLake) throw new Error('the securityLake context made no Security Lake export');
  const functions: [Reader, string][] = [
    ['archive-history', idOf(stack.archiver.fn)],
    ['fanout', idOf(stack.fanout.fn)],
    ['snapshot-active', idOf(stack.snapshots.fn)],
    ['detect', idOf(stack.detections.fn)],
    ['security-lake-export', idOf(stack.securityLake.fn)],
    ['verify-job', idOf(stack.verifyJob.fn)],
  ];

  it('knows which settings every function of the template reads', () => {
    const known = new Set(functions.map(([, id]) => id));
    expect(policies.resources('AWS::Lambda::Function').filter(([id]) => !known.has(id))).toEqual([]);
  });

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
        UNSET_BY_DESIGN[s.env] === undefined &&
        UNSET_FOR[reader]?.[s.env] === undefined,
    ).map((s) => s.env);
    expect(missing).toEqual([]);
  });

  it('gives a reason only for settings that exist and that some function reads', () => {
    const read = new Set<string>(SETTINGS.filter((s) => s.readBy.some((r) => r !== 'cli')).map((s) => s.env));
    expect(Object.keys(UNSET_BY_DESIGN).filter((v) => !read.has(v))).toEqual([]);
    const readBy = (env: string, reader: Reader) =>
      SETTINGS.some((s) => s.env === env && (s.readBy as readonly Reader[]).includes(reader));
    expect(
      Object.entries(UNSET_FOR).flatMap(([reader, vars]) =>
        Object.keys(vars ?? {})
          .filter((v) => !readBy(v, reader as Reader))
          .map((v) => `${reader}: ${v}`),
      ),
    ).toEqual([]);
  });
});
