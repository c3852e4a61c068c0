import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import AWSAccount from 's3rver/lib/models/account.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SecretsStubHandle, startSecretsStub } from '../../devkit/infra/startSecretsStub.ts';
import type { CfnTemplate } from '../../devkit/infra/templateArns.ts';
import { templateVariables } from '../../devkit/infra/templateEnv.ts';
import { iamStatements, resourceSuffix } from '../../devkit/infra/testApp.ts';
import { LAMBDA_NODE } from '../../devkit/lambdaNode.ts';
import { type DynaliteHandle, localDynamoClient, startDynalite } from '../../devkit/startDynalite.ts';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import { SecurityLakeExport } from '../../infra/constructs/securityLakeExport.ts';
import { ensureStateTable } from '../../lib/archive/state/ensureStateTable.ts';
import { closeArchiveHour, emulatorArchive } from '../ocsf/emulatorArchive.ts';
import { ocsfErrors } from '../ocsf/ocsfSchemas.ts';
import { readLakeObject } from '../ocsf/readLakeObject.ts';
import { type RecordingProxy, startRecordingProxy } from '../ocsf/recordingProxy.ts';
import { type StsStubHandle, startStsStub } from '../ocsf/startStsStub.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { startWriteOnceFront, type WriteOnceFront } from '../support/writeOnceS3Front.ts';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const LAKE_BUCKET = 'aws-security-data-lake-eu-west-1-test';
/** What the source's external-id secret holds: the function reads it, the template names only the secret. */
const EXTERNAL_ID = 'external-sessions';
const SOURCE = {
  cls: 'sessions' as const,
  bucket: LAKE_BUCKET,
  prefix: 'ext/tunnel-archiver-sessions/',
  roleArn: `arn:aws:iam::${ACCOUNT}:role/AmazonSecurityLake-Provider-tunnel-archiver-sessions-${REGION}`,
  externalIdSecret: 'tunnel-archiver/lake-external-id-sessions',
};

const tmp = tempDirPer('ta-lake-bundle-');
// The function bundled by its construct, as the stack bundles it (esbuild, `detections/`, and
// `@duckdb/node-api` installed with its native binding), outside the repo so it cannot lean on node_modules.
const outdir = mkdtempSync(join(tmpdir(), 'ta-lake-bundle-out-'));
const app = new App({ outdir });
const stack = new Stack(app, 'Lake', { env: { account: ACCOUNT, region: REGION } });
const archiveBucket = new Bucket(stack, 'Archive');
const lake = new SecurityLakeExport(stack, 'SecurityLake', {
  bucket: archiveBucket,
  table: Table.fromTableName(stack, 'State', 'tunnel-archiver-state'),
  sources: [SOURCE],
});
app.synth();
const template = Template.fromStack(stack);
const fnId = stack.getLogicalId(lake.fn.node.defaultChild as CfnElement);
const fnProps = template.toJSON().Resources[fnId].Properties as {
  Code: { S3Key: string };
  Environment: { Variables: Record<string, string> };
};
const assetDir = join(outdir, `asset.${fnProps.Code.S3Key.replace(/\.zip$/, '')}`);
/** The function's environment exactly as the template sets it; the stand-ins hold its bucket and table. */
const shipped = templateVariables(template.toJSON() as CfnTemplate, fnId);
const ARCHIVE_BUCKET = /^s3:\/\/([^/]+)\//.exec(shipped.ARCHIVE_DEST ?? '')?.[1] ?? '';
const STATE_TABLE = (shipped.ARCHIVE_STATE ?? '').replace(/^dynamodb:\/\//, '');

let s3: S3rverHandle;
let front: WriteOnceFront;
let s3Calls: RecordingProxy;
let dynamo: DynaliteHandle;
let dynamoCalls: RecordingProxy;
let sts: StsStubHandle;
let secrets: SecretsStubHandle;
let run: { stdout: string; stderr: string };

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path).map((f) => join(name, f)) : [name];
  });
}

beforeAll(async () => {
  let archive: string;
  [archive, s3, sts, dynamo] = await Promise.all([
    emulatorArchive(tmp.dir),
    startS3rver(LAKE_BUCKET),
    startStsStub(),
    startDynalite(),
  ]);
  await ensureStateTable(localDynamoClient(dynamo.endpoint), STATE_TABLE);
  secrets = await startSecretsStub({ [SOURCE.externalIdSecret]: EXTERNAL_ID });
  // A later run's digest (an hour after the archive was made) closes the archive's hour of 12:00: the
  // export sends only complete hours of the digest chain.
  await closeArchiveHour(archive);
  // One S3 endpoint (the SDK's AWS_ENDPOINT_URL_S3) holds both buckets: the archive and the lake.
  await s3.client.send(new CreateBucketCommand({ Bucket: ARCHIVE_BUCKET }));
  for (const key of filesUnder(archive).filter((k) => /^(history|findings|digests)\//.test(k)))
    await s3.client.send(
      new PutObjectCommand({ Bucket: ARCHIVE_BUCKET, Key: key, Body: readFileSync(join(archive, key)) }),
    );
  front = await startWriteOnceFront(s3);
  s3Calls = await startRecordingProxy(front.endpoint);
  dynamoCalls = await startRecordingProxy(dynamo.endpoint);
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(sts.accessKeyId, sts.secretAccessKey);
  // No cursor yet: the run starts at the chain's first digest and sends every complete archive hour.
  const script = `
    const { handler } = await import(${JSON.stringify(join(assetDir, 'index.mjs'))});
    const context = {
      functionName: 'security-lake-export', awsRequestId: 'req-1', memoryLimitInMB: '2048',
      invokedFunctionArn: 'arn:aws:lambda:${REGION}:${ACCOUNT}:function:security-lake-export',
      getRemainingTimeInMillis: () => 900000,
    };
    console.log('RESULT ' + JSON.stringify(await handler({}, context)));`;
  run = await promisify(execFile)(LAMBDA_NODE, ['--input-type=module', '-e', script], {
    cwd: outdir,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 180_000,
    env: {
      PATH: process.env.PATH ?? '',
      TMPDIR: tmp.dir,
      ...shipped,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_ENDPOINT_URL_S3: s3Calls.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamoCalls.endpoint,
      AWS_ENDPOINT_URL_STS: sts.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    },
  });
}, 300_000);

afterAll(async () => {
  AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(sts?.accessKeyId ?? '');
  await Promise.allSettled([
    s3Calls?.close(),
    dynamoCalls?.close(),
    front?.close(),
    sts?.close(),
    secrets?.close(),
    dynamo?.close(),
  ]);
  await s3?.close();
  rmSync(outdir, { recursive: true, force: true });
});

describe('the bundled Security Lake export function', () => {
  it('carries DuckDB with its native binding for Linux x64, beside the bundle', () => {
    const natives = filesUnder(join(assetDir, 'node_modules')).filter((f) => f.endsWith('.node'));
    expect(natives.some((f) => f.includes('node-bindings-linux-x64'))).toBe(true);
    expect(relative(assetDir, join(assetDir, 'detections'))).toBe('detections');
    expect(filesUnder(join(assetDir, 'detections')).some((f) => f.endsWith('.yml'))).toBe(true);
  });

  it('loads, assumes the provider role and writes a day of settled hours as OCSF 1.1 Parquet', async () => {
    const result = JSON.parse(/^RESULT (.*)$/m.exec(run.stdout)?.[1] ?? 'null') as {
      cls: string;
      hours: number;
      files: number;
      events: number;
    }[];
    expect(result).toHaveLength(1);
    expect(result[0]).toMatchObject({ cls: 'sessions' });
    expect(result[0]?.hours).toBeGreaterThanOrEqual(1);
    expect(result[0]?.files).toBeGreaterThan(0);
    expect(sts.assumed).toContainEqual({
      RoleArn: SOURCE.roleArn,
      ExternalId: EXTERNAL_ID,
      RoleSessionName: 'tunnel-archiver-sessions',
    });
    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: LAKE_BUCKET }));
    const keys = (listed.Contents ?? []).map((o) => o.Key ?? '');
    expect(keys).toHaveLength(result[0]?.files ?? -1);
    for (const key of keys)
      expect(key).toMatch(
        /^ext\/tunnel-archiver-sessions\/region=eu-west-1\/accountId=123456789012\/eventDay=2026111\d\/sessions-\d{10}-\d{10}\.parquet$/,
      );
    // One file read back with DuckDB: each event is an OCSF 1.1 Network Activity.
    const rows = await readLakeObject(s3.client, LAKE_BUCKET, keys[0] ?? '', join(tmp.dir, 'hour.parquet'));
    expect(rows.length).toBeGreaterThan(0);
    const { stripNulls } = await import('../../lib/analytics/ocsf/stripNulls.ts');
    expect(
      rows.map((e) => ocsfErrors('1.1.0-network_activity', stripNulls(e))).filter((e) => e !== ''),
    ).toEqual([]);
  });

  it("makes only calls its role allows: the template's statements cover every request it sent", () => {
    const statements = iamStatements(template).filter((s) => s.effect === 'Allow');
    const allows = (action: string, resource: string) =>
      statements.some(
        (s) =>
          s.actions.includes(action) &&
          s.resources.some((r) => {
            const suffix = resourceSuffix(r);
            // A resource of the archive bucket or table: its literal tail, `*` as a wildcard.
            const tail = new RegExp(`${suffix.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
            return suffix === resource || (typeof r !== 'string' && tail.test(resource));
          }),
      );
    const bucketArn = {
      'Fn::GetAtt': [stack.getLogicalId(archiveBucket.node.defaultChild as CfnElement), 'Arn'],
    };
    const onArchiveBucket = (action: string) =>
      statements.some(
        (s) =>
          s.actions.includes(action) &&
          s.resources.some((r) => JSON.stringify(r) === JSON.stringify(bucketArn)),
      );
    const needed = new Set<string>();
    // S3 calls signed by the function's own role (the lake's are signed by the provider role's session).
    const own = s3Calls.seen.filter((c) => c.authorization.includes('Credential=S3RVER/'));
    expect(own.length).toBeGreaterThan(0);
    for (const c of own) {
      const url = new URL(c.path, 'http://x');
      const [, bucket = '', ...key] = url.pathname.split('/');
      expect(bucket, `${c.method} ${c.path}`).toBe(ARCHIVE_BUCKET);
      if (c.method === 'GET' && key.join('/') === '') {
        needed.add(`s3:ListBucket bucket (prefix ${url.searchParams.get('prefix')})`);
        expect(onArchiveBucket('s3:ListBucket'), 's3:ListBucket on the archive bucket').toBe(true);
        // The listing's prefix is one the statement's s3:prefix condition allows.
        const listing = statements.find((s) => s.actions.includes('s3:ListBucket'));
        const condition = listing?.condition as { StringLike?: { 's3:prefix'?: string[] } } | undefined;
        const prefixes = condition?.StringLike?.['s3:prefix'] ?? [];
        const prefix = url.searchParams.get('prefix') ?? '';
        expect(
          prefixes.some((p) => new RegExp(`^${p.replace(/\*/g, '.*')}$`).test(prefix)),
          `s3:prefix ${prefix}`,
        ).toBe(true);
      } else {
        expect(['GET', 'HEAD'], `${c.method} ${c.path}`).toContain(c.method);
        needed.add(`s3:GetObject ${key[0]}/`);
        expect(allows('s3:GetObject', `/${key.join('/')}`), `s3:GetObject /${key.join('/')}`).toBe(true);
      }
    }
    const lakeCalls = s3Calls.seen.filter((c) => c.authorization.includes(`Credential=${sts.accessKeyId}/`));
    expect(lakeCalls.length).toBeGreaterThan(0);
    expect(lakeCalls.every((c) => c.path.startsWith(`/${LAKE_BUCKET}/`))).toBe(true);
    expect(own.length + lakeCalls.length).toBe(s3Calls.seen.length);
    // DynamoDB: the cursor only.
    const operations = [...new Set(dynamoCalls.seen.map((c) => c.target.replace(/^DynamoDB_\d+\./, '')))];
    expect(operations.length).toBeGreaterThan(0);
    for (const op of operations) {
      needed.add(`dynamodb:${op}`);
      expect(
        statements.some((s) => s.actions.includes(`dynamodb:${op}`)),
        `dynamodb:${op}`,
      ).toBe(true);
    }
    // STS: the provider role, by its ARN.
    for (const a of sts.assumed) expect(allows('sts:AssumeRole', a.RoleArn), a.RoleArn).toBe(true);
    expect([...needed].sort()).toEqual(
      expect.arrayContaining([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        's3:GetObject digests/',
        's3:GetObject history/',
      ]),
    );
  });
});
