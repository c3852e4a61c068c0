import { execFile, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import type { CfnElement } from 'aws-cdk-lib';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { parquetMetadata } from 'hyparquet';
import AWSAccount from 's3rver/lib/models/account.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWS_CALL_LOG_ENV, AWS_CALL_LOG_PRELOAD, type RecordedCall } from '../../devkit/awsCallLog.ts';
import { type KmsStubHandle, startKmsStub } from '../../devkit/infra/startKmsStub.ts';
import { type SecretsStubHandle, startSecretsStub } from '../../devkit/infra/startSecretsStub.ts';
import { type CfnTemplate, resolver } from '../../devkit/infra/templateArns.ts';
import {
  deployedEnv,
  lambdaRuntimeVariables,
  type StandInEndpoints,
  templateVariables,
} from '../../devkit/infra/templateEnv.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { lambdaCommand } from '../../devkit/lambdaCommand.ts';
import { LAMBDA_NODE } from '../../devkit/lambdaNode.ts';
import { type DynaliteHandle, localDynamoClient, startDynalite } from '../../devkit/startDynalite.ts';
import {
  EMULATOR_FREE_KEY,
  EMULATOR_PAID_KEY,
  type EmulatorHandle,
  startEmulator,
} from '../../devkit/startEmulator.ts';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import {
  BUILTINS_BY_REQUIRE,
  ENGINE_EXEC_WRAPPER,
  LAMBDA_NODE_MAJOR,
} from '../../infra/constructs/archiveFunction.ts';
import { readActiveRows } from '../../lib/archive/active/activeParquet.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { tokenKeyFromSecret } from '../../lib/archive/keys/tokenKeyFromSecret.ts';
import { readRecordIds } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { tokenHmac } from '../../lib/archive/records/tokenHmac.ts';
import { ensureStateTable } from '../../lib/archive/state/ensureStateTable.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { tryKernelLock } from '../../lib/foundation/process/kernelLock.ts';
import { livenessRoot } from '../../lib/foundation/process/processLiveness.ts';
import { closeArchiveHour, emulatorArchive } from '../ocsf/emulatorArchive.ts';
import { startStsStub } from '../ocsf/startStsStub.ts';
import {
  builtinsOf,
  METAFILE,
  type Metafile,
  shippedPackages,
  unshippedImports,
  withBundleMetafiles,
} from './bundleMetafiles.ts';
import { accessesOf, namesFromEnv } from './callAccesses.ts';
import { LAKE_EXTERNAL_ID, LAKE_SOURCE } from './lakeSource.ts';
import { type Access, refusals, TemplatePolicies } from './roleAccess.ts';
import { reportFailures, roleReports } from './roleReport.ts';
import { serviceNeeds } from './serviceNeeds.ts';
import { startAthenaStub } from './startAthenaStub.ts';
import { startEventBridgeStub } from './startEventBridgeStub.ts';
import { startSnsStub } from './startSnsStub.ts';

/** A key without a paid plan, in a secret a team imports by name (the stack's `apiKeySecret` context). */
const FREE_SECRET_ID = 'tunnel-archiver/free-plan-key';

// The bundle exactly as `cdk synth` produces it, outside the repo so it cannot lean on node_modules; its
// esbuild metafile beside it. Every opt-in is on, so every function the stack can have is bundled.
const outdir = mkdtempSync(join(tmpdir(), 'ta-proof-bundle-'));
const { stack, template } = withBundleMetafiles(() =>
  synthApp({
    bundle: true,
    outdir,
    context: { securityLake: JSON.stringify({ sources: [LAKE_SOURCE] }) },
  }),
);
/** A function of the stack: its logical id in the template, and its bundle. */
interface StackFunction {
  id: string;
  bundle: string;
}
function functionOf(fn: NodejsFunction): StackFunction {
  const id = stack.getLogicalId(fn.node.defaultChild as CfnElement);
  const key = String(template.toJSON().Resources[id].Properties.Code.S3Key);
  return { id, bundle: join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs') };
}
const archiver = functionOf(stack.archiver.fn);
const bundle = archiver.bundle;
const snapshotFn = functionOf(stack.snapshots.fn);
const snapshotBundle = snapshotFn.bundle;
const detectFn = functionOf(stack.detections.fn);
const fanoutFn = functionOf(stack.fanout.fn);
if (!stack.securityLake) throw new Error('the securityLake context made no Security Lake export');
const lakeFn = functionOf(stack.securityLake.fn);
const verifyJobFn = functionOf(stack.verifyJob.fn);

/**
 * The names the template gives what the functions talk to (resolved as CloudFormation would): the stand-ins
 * hold a bucket, a table and secrets under exactly these names, so a function runs with the template's own
 * environment and nothing written by hand.
 */
const nameOf = (construct: { node: { defaultChild?: unknown } }): string =>
  String(
    resolver(template.toJSON() as CfnTemplate)({
      Ref: stack.getLogicalId(construct.node.defaultChild as CfnElement),
    }),
  );
const BUCKET = nameOf(stack.buckets.archive);
const TABLE = nameOf(stack.table);
const SECRET_ID = nameOf(stack.apiKey.secret);
const TOKEN_KEY_SECRET_ID = nameOf(stack.integrity.tokenKey);

/** What a test may change: the stack's own context options (synthesized), and its stand-ins' addresses. */
interface Deploy {
  context?: Record<string, unknown>;
  endpoints?: StandInEndpoints;
}

const deployedTemplates = new Map<string, { json: CfnTemplate; policies: TemplatePolicies }>();
/**
 * The template a team deploys with `context` (every opt-in on, the emulator as its API unless the context
 * names another), synthesized once per context. Its functions' logical ids are the bundled template's.
 */
function deployedTemplate(context: Record<string, unknown> = {}): {
  json: CfnTemplate;
  policies: TemplatePolicies;
} {
  const all = {
    securityLake: JSON.stringify({ sources: [LAKE_SOURCE] }),
    apiBaseUrl: emulator.url,
    ...context,
  };
  const key = JSON.stringify(all);
  let t = deployedTemplates.get(key);
  if (t === undefined) {
    const json = synthApp({ context: all }).template.toJSON() as CfnTemplate;
    t = { json, policies: new TemplatePolicies(json) };
    deployedTemplates.set(key, t);
  }
  return t;
}

/** An S3 and a DynamoDB stand-in of one test's own, holding the template's bucket and table. */
async function ownStores(): Promise<{
  store: S3rverHandle;
  endpoints: StandInEndpoints;
  close(): Promise<void>;
}> {
  const store = await startS3rver(BUCKET);
  const db = await startDynalite();
  await ensureStateTable(localDynamoClient(db.endpoint), TABLE);
  return {
    store,
    endpoints: { s3: store.endpoint, dynamodb: db.endpoint },
    close: async () => void (await Promise.allSettled([store.close(), db.close()])),
  };
}

/**
 * The template's policies; the permissions each role's recorded calls used, its services' needs first
 * (for the least-privilege report); the calls recorded of each function; the calls signed by a role
 * the function assumed (not its own, so not its role's to allow).
 */
const policies = new TemplatePolicies(template.toJSON() as CfnTemplate);
const used = new Map<string, Access[]>(serviceNeeds(policies));
const recorded = new Map<string, number>();
const assumedCalls: RecordedCall[] = [];

/**
 * The recorded calls of one invocation against the function's role in the template: the refusals, each
 * naming the function, the call and the action it lacks.
 */
async function deniedCalls(
  fn: StackFunction,
  env: Record<string, string>,
  calls: RecordedCall[],
  policies: TemplatePolicies,
) {
  const roleId = policies.roleOf(fn.id);
  const environment = policies.resolved.Resources[fn.id]?.Properties?.Environment as
    | { Variables?: Record<string, unknown> }
    | undefined;
  const stackEnv = environment?.Variables ?? {};
  const names = namesFromEnv(env, stackEnv);
  const state = {};
  const accesses: Access[] = [];
  const own = calls.filter((c) => c.as === undefined);
  for (const call of own) accesses.push(...(await accessesOf(call, names, policies, state)));
  // A call signed by an assumed role: that role was assumed first, by a call the function's role made.
  const assumed = new Set(own.filter((c) => c.command === 'AssumeRoleCommand').map((c) => c.input.RoleArn));
  for (const c of calls.filter((c) => c.as !== undefined)) {
    expect(assumed.has(c.as), `${fn.id}: ${c.command} signed as ${c.as}, never assumed`).toBe(true);
    assumedCalls.push(c);
  }
  used.set(roleId, [...(used.get(roleId) ?? []), ...accesses]);
  recorded.set(fn.id, (recorded.get(fn.id) ?? 0) + own.length);
  return refusals(policies, fn.id, roleId, accesses);
}

/** The emulator most tests share (real time); a test that needs its sessions held still freezes a copy. */
const SHARED_EMULATOR = {
  seed: 11,
  maxPageSize: 100,
  dataset: { normalMin: 5, normalMax: 40, heavyMin: 150, heavyMax: 250 },
};

/**
 * What a snapshot function test runs against: a copy of the shared emulator with its active list held still
 * (its clock fixed: a tunnel that ended or opened between the snapshots and the checks would fail them on a
 * busy day), stores of its own, and the SNS and EventBridge stand-ins its findings go to.
 */
async function snapshotPeers() {
  const frozen = await startEmulator({ ...SHARED_EMULATOR, clock: fixedClock(new Date()) });
  const own = await ownStores();
  const sns = await startSnsStub();
  const events = await startEventBridgeStub();
  return {
    frozen,
    store: own.store,
    sns,
    events,
    endpoints: { ...own.endpoints, sns: sns.endpoint, eventBridge: events.endpoint },
    close: async () =>
      void (await Promise.allSettled([frozen.close(), own.close(), sns.close(), events.close()])),
  };
}

let emulator: EmulatorHandle;
let s3: S3rverHandle;
let dynamo: DynaliteHandle;
let secrets: SecretsStubHandle;
let kms: KmsStubHandle;

beforeAll(async () => {
  emulator = await startEmulator(SHARED_EMULATOR);
  s3 = await startS3rver(BUCKET);
  dynamo = await startDynalite();
  await ensureStateTable(localDynamoClient(dynamo.endpoint), TABLE);
  secrets = await startSecretsStub({
    [SECRET_ID]: JSON.stringify({ apiKey: EMULATOR_PAID_KEY }),
    [FREE_SECRET_ID]: EMULATOR_FREE_KEY,
    [TOKEN_KEY_SECRET_ID]: 'k'.repeat(64),
    [LAKE_SOURCE.externalIdSecret]: LAKE_EXTERNAL_ID,
  });
  kms = await startKmsStub();
});

afterAll(async () => {
  await Promise.allSettled([emulator?.close(), s3?.close(), dynamo?.close(), secrets?.close(), kms?.close()]);
  rmSync(outdir, { recursive: true, force: true });
});

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path).map((f) => join(name, f)) : [name];
  });
}

/**
 * What the plan step of a job's function (the fan-out's or the verify job's) returned, which must have
 * succeeded, and the items it wrote where the plan says (`itemsKey`), as the map's ItemReader reads them.
 */
async function planAndItems<Plan extends { itemsKey: string }, Item>(
  planned: Awaited<ReturnType<typeof invokeBundle>>,
  store: Pick<S3rverHandle, 'client' | 'bucket'>,
): Promise<{ plan: Plan; items: Item[] }> {
  expect(
    planned.results.map((r) => r.ok),
    planned.stdout.slice(-2000),
  ).toEqual([true]);
  const plan = planned.results[0]?.value as Plan;
  const itemsObject = await store.client.send(
    new GetObjectCommand({ Bucket: store.bucket, Key: plan.itemsKey }),
  );
  const items = JSON.parse((await itemsObject.Body?.transformToString()) ?? '[]') as Item[];
  return { plan, items };
}

/**
 * Invokes the bundled handler once per event, in one child process (one warm container), as Lambda would,
 * under the Lambda's own Node major (tools/lambda-node), never the Node that runs the tests, with a temp
 * folder of its own (`tmp`, a fresh one unless given).
 */
async function invokeBundle(
  events: unknown[],
  deploy: Deploy = {},
  fn: StackFunction = archiver,
  tmp = mkdtempSync(join(outdir, 'tmp-')),
): Promise<{ results: { ok: boolean; value: unknown }[]; stdout: string; calls: RecordedCall[] }> {
  const entry = fn.bundle;
  const callLog = join(tmp, 'calls.jsonl');
  const script = `
    import workerThreads from 'node:worker_threads';
    import { syncBuiltinESMExports } from 'node:module';
    // Counts the worker threads the bundle starts (its \`import { Worker }\` binds after this patch).
    let workers = 0;
    const { Worker } = workerThreads;
    workerThreads.Worker = class extends Worker { constructor(...a) { super(...a); workers++; } };
    syncBuiltinESMExports();
    process.on('exit', () => console.log('WORKERS ' + workers));
    console.log('NODE ' + process.versions.node);
    const { handler } = await import(${JSON.stringify(entry)});
    // The builtin modules Node loaded by the end of the import, the handler's cold start.
    console.log('LOADED ' + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule '))));
    const context = {
      functionName: 'tunnel-archiver', functionVersion: '$LATEST', memoryLimitInMB: '1024', awsRequestId: 'req-1',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:tunnel-archiver',
      getRemainingTimeInMillis: () => 300000,
    };
    for (const event of ${JSON.stringify(events)}) {
      try { console.log('RESULT ' + JSON.stringify({ ok: true, value: await handler(event, context) })); }
      catch (e) { console.log('RESULT ' + JSON.stringify({ ok: false, value: { code: e.code, message: e.message } })); }
    }`;
  const deployed = deployedTemplate(deploy.context);
  const endpoints: StandInEndpoints = {
    s3: s3.endpoint,
    dynamodb: dynamo.endpoint,
    secretsManager: secrets.endpoint,
    kms: kms.endpoint,
    ...deploy.endpoints,
  };
  // Exactly the template's environment for this function, what the Lambda runtime sets, and the stand-ins'
  // endpoints: a variable the template does not set stays unset, as in a first deploy.
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...(fn.id === '' ? lambdaRuntimeVariables('probe', 1024) : deployedEnv(deployed.json, fn.id, endpoints)),
    // The dev kit's call log, preloaded: the bundle is the one that ships, its AWS clients take the plugin.
    NODE_OPTIONS: `--enable-source-maps --import ${AWS_CALL_LOG_PRELOAD}`,
    // Its own temp folder, as a Lambda sandbox has: never the machine's, where other runs leave theirs.
    TMPDIR: tmp,
    // Every AWS call the function makes, appended here (devkit/awsCallLog.ts).
    [AWS_CALL_LOG_ENV]: callLog,
  };
  let stdout: string;
  try {
    // As Lambda starts the function: through the exec wrapper its environment names (the bundle's copy,
    // beside the handler), given the Node and its arguments; else the Node itself.
    const wrapper = fullEnv.AWS_LAMBDA_EXEC_WRAPPER;
    const nodeArgs = ['--input-type=module', '-e', script];
    const [command, args] = lambdaCommand(
      LAMBDA_NODE,
      nodeArgs,
      wrapper === undefined ? undefined : join(dirname(entry), basename(wrapper)),
    );
    ({ stdout } = await promisify(execFile)(command, args, {
      cwd: outdir,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
      env: fullEnv,
    }));
  } catch (error) {
    // A function whose init fails with its template environment fails the test by name.
    const e = error as Error & { stderr?: string; stdout?: string };
    throw new Error(
      `${fn.id}: the bundle failed with its template environment: ${e.message.slice(0, 300)} ${e.stderr?.slice(-1500) ?? ''}`,
    );
  }
  const calls = existsSync(callLog)
    ? readFileSync(callLog, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as RecordedCall)
    : [];
  // Every call the function made is one its role in the template allows (resource policies included).
  if (fn.id !== '')
    expect(await deniedCalls(fn, fullEnv, calls, deployed.policies), 'calls its role does not allow').toEqual(
      [],
    );
  const results = stdout
    .split('\n')
    .filter((l) => l.startsWith('RESULT '))
    .map((l) => JSON.parse(l.slice('RESULT '.length)) as { ok: boolean; value: unknown });
  return { results, stdout, calls };
}

/** Every codec named in the archive's Parquet column chunks. */
const codecs = new Set<string>();

/** Every record id in the archive's Parquet files, duplicates kept (and their codecs into `codecs`). */
async function archivedIds(store: S3rverHandle = s3): Promise<string[]> {
  const ids: string[] = [];
  let token: string | undefined;
  do {
    const page = await store.client.send(
      new ListObjectsV2Command({ Bucket: store.bucket, Prefix: 'history/', ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      const body = await store.client.send(new GetObjectCommand({ Bucket: store.bucket, Key: o.Key }));
      const bytes = await body.Body!.transformToByteArray();
      ids.push(...(await readRecordIds(bytes)));
      const meta = parquetMetadata(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      );
      for (const g of meta.row_groups) for (const c of g.columns) codecs.add(String(c.meta_data?.codec));
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return ids;
}

const truthIds = (days: string[], at: Date, from: EmulatorHandle = emulator) =>
  new Set(
    days.flatMap((d) =>
      from.truth(d, at).map((r) => recordId(r, tokenKeyFromSecret('k'.repeat(64), TOKEN_KEY_SECRET_ID))),
    ),
  );

describe('every bundle of the stack', () => {
  it('can reach no module it does not ship: its externals are Node builtins and the AWS SDK only', () => {
    const functions = stack.node.findAll().filter((c) => c instanceof NodejsFunction);
    const builtins = builtinsOf(LAMBDA_NODE);
    expect(builtins.has('node:sqlite')).toBe(true);
    const found: Record<string, unknown> = {};
    for (const [id, fn] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
      const dir = join(outdir, `asset.${String(fn.Properties.Code?.S3Key).replace(/\.zip$/, '')}`);
      if (!existsSync(join(dir, 'index.mjs'))) continue;
      const meta = JSON.parse(readFileSync(join(dir, METAFILE), 'utf8')) as Metafile;
      found[id] = unshippedImports(meta, builtins, shippedPackages(dir));
    }
    expect(Object.keys(found)).toHaveLength(functions.length);
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((id) => [id, []])));
  });
});

describe('every function of the template, started with its template environment alone', () => {
  // Its init (config parsed, clients built, keys named) is what a first deploy meets before any event.
  const functions = Object.entries(template.findResources('AWS::Lambda::Function'))
    .map(([id, f]) => ({
      id,
      dir: join(outdir, `asset.${String(f.Properties.Code?.S3Key).replace(/\.zip$/, '')}`),
    }))
    .filter((f) => existsSync(join(f.dir, 'index.mjs')))
    .map((f) => ({ id: f.id, bundle: join(f.dir, 'index.mjs') }));

  it('are the stack’s six functions', () => {
    expect(functions.map((f) => f.id).sort()).toEqual(
      [archiver, snapshotFn, detectFn, fanoutFn, lakeFn, verifyJobFn].map((f) => f.id).sort(),
    );
  });

  it('each holds the exec wrapper its environment names, executable, as the repository has it', () => {
    const named = functions.flatMap((f) => {
      const wrapper = templateVariables(template.toJSON() as CfnTemplate, f.id).AWS_LAMBDA_EXEC_WRAPPER;
      return wrapper === undefined
        ? []
        : [{ id: f.id, wrapper, copy: join(dirname(f.bundle), basename(wrapper)) }];
    });
    expect(named.map((n) => n.id).sort()).toEqual([archiver, fanoutFn, verifyJobFn].map((f) => f.id).sort());
    for (const { wrapper, copy } of named) {
      expect(wrapper).toBe(ENGINE_EXEC_WRAPPER.path);
      expect(statSync(copy).mode & 0o111, copy).toBe(0o111);
      expect(readFileSync(copy, 'utf8')).toBe(readFileSync(ENGINE_EXEC_WRAPPER.source, 'utf8'));
    }
  });

  it.each(functions.map((f) => [f.id, f] as const))('%s loads its handler', async (_id, fn) => {
    const { stdout } = await invokeBundle([], {}, fn);
    expect(stdout).toMatch(/^LOADED /m);
  });
});

describe('the CDK-bundled handler', () => {
  it('is one ESM file with the require shim and no node_modules beside it', () => {
    const source = readFileSync(bundle, 'utf8');
    expect(
      source.startsWith(
        "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
      ),
    ).toBe(true);
    expect(existsSync(join(dirname(bundle), 'node_modules'))).toBe(false);
  });

  it('leaves out what costs cold start and no run needs: zod locales, source text in the source map', () => {
    // `import * as z from 'zod'` lets esbuild drop zod's other locales; `import { z }` kept all of them
    // (about 370 KB of the 1.9 MB bundle). "zu haben" is from the German one.
    expect(readFileSync(bundle, 'utf8')).not.toContain('zu haben');
    // Stack traces still map to file and line (--enable-source-maps); the map holds no copy of the source.
    const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown[];
    };
    expect(map.sources.some((s) => s.endsWith('functions/archive-history/handler.ts'))).toBe(true);
    expect(map.sourcesContent ?? []).toEqual([]);
  });

  it('leaves out undici beyond its Agent, and imports http, https and process through require()', () => {
    const source = readFileSync(bundle, 'utf8');
    // lib/global.js of undici's package index (loaded with fetch, WebSocket and the rest) holds this symbol.
    expect(source).not.toContain('undici.globalDispatcher.1');
    expect(source).not.toContain('globalThis.Headers');
    for (const name of BUILTINS_BY_REQUIRE) {
      expect(source).not.toMatch(new RegExp(`from\\s*["']node:${name}["']`));
      // infra/bundling/builtins/<name>.cjs, minified: `module.exports = require('<name>')`.
      // (a minified identifier may hold `$`)
      expect(source).toMatch(new RegExp(`exports=[\\w$]+\\("${name}"\\)`));
    }
  });

  it("loads neither Node's own undici nor an ESM facade of node:http while the handler starts", async () => {
    const { stdout } = await invokeBundle([]);
    const loaded = JSON.parse(/^LOADED (.*)$/m.exec(stdout)?.[1] ?? 'null') as string[];
    // The handler did start: its AWS clients need node:https, loaded as CommonJS.
    expect(loaded).toContain('NativeModule https');
    // Node's undici comes with the web globals (Headers, fetch) or with an ESM import of node:http.
    expect(loaded.filter((m) => m.includes('undici'))).toEqual([]);
  });

  it('runs under the Lambda runtime Node major', async () => {
    const { stdout } = await invokeBundle([]);
    const version = /^NODE (\S+)$/m.exec(stdout)?.[1];
    expect(version?.split('.')[0]).toBe(String(LAMBDA_NODE_MAJOR));
  });

  it('archives the window to S3 with state in DynamoDB and the key from Secrets Manager, exactly once', async () => {
    const before = new Date();
    const today = toDay(before);
    // Only this container's reads count: every earlier invocation was a cold start of its own.
    const earlierSecretReads = secrets.requests.length;
    const { results, stdout } = await invokeBundle([{}, { backfillDays: [addDays(today, -1)] }]);
    const after = new Date();
    // The handler takes its window from its own clock, so a UTC midnight during the runs moves it by a
    // day: what it must archive is what both windows hold, and what it may is what either one held.
    const windowOf = (at: Date) => dayRange(addDays(toDay(at), -59), toDay(at));
    const afterWindow = new Set(windowOf(after));
    const both = windowOf(before).filter((d) => afterWindow.has(d));
    const lastInWindow = new Date(Date.parse(`${toDay(after)}T00:00:00Z`) - 1);
    const dropped = windowOf(before).filter((d) => !afterWindow.has(d));

    expect(
      results.map((r) => r.ok),
      stdout.slice(-2000),
    ).toEqual([true, true]);
    const first = results[0]?.value as { daysScanned: number; recordsNew: number; shortfalls: unknown[] };
    expect(first.daysScanned).toBe(60);
    expect(first.shortfalls).toEqual([]);

    // Exactly once: no id twice, nothing that did not exist, everything that existed when the run began.
    const ids = await archivedIds();
    expect(new Set(ids).size).toBe(ids.length);
    const upper = new Set([...truthIds([...afterWindow], after), ...truthIds(dropped, lastInWindow)]);
    expect(ids.filter((id) => !upper.has(id))).toEqual([]);
    const archived = new Set(ids);
    expect([...truthIds(both, before)].filter((id) => !archived.has(id))).toEqual([]);
    expect(ids.length).toBeGreaterThan(100);
    // The Lambda's Node has node:zlib zstd, so every archive file is ZSTD.
    expect([...codecs]).toEqual(['ZSTD']);

    // The warm container read the API key once (Powertools cache), the token key once at cold start,
    // and published success metrics each run.
    expect(secrets.requests.slice(earlierSecretReads).sort()).toEqual(
      [SECRET_ID, TOKEN_KEY_SECRET_ID].sort(),
    );
    const emf = stdout
      .split('\n')
      .filter((l) => l.includes('"CloudWatchMetrics"'))
      .map((l) => JSON.parse(l));
    expect(emf).toHaveLength(2);
    for (const m of emf)
      expect(m).toMatchObject({ service: 'tunnel-archiver', RunSucceeded: 1, AuthFailures: 0 });
    expect(emf[0].RecordsArchived).toBe(first.recordsNew);
    expect(stdout).not.toContain(EMULATOR_PAID_KEY);
    // Two full runs, then each call simulated against the role: minutes on a loaded 2-core machine.
  }, 240_000);

  it('fails a run on a key without a paid plan, after publishing AuthFailures', async () => {
    const { results, stdout } = await invokeBundle([{}], { context: { apiKeySecret: FREE_SECRET_ID } });
    expect(results).toEqual([{ ok: false, value: expect.objectContaining({ code: 'PLAN_REQUIRED' }) }]);
    const emf = stdout
      .split('\n')
      .filter((l) => l.includes('"CloudWatchMetrics"'))
      .map((l) => JSON.parse(l));
    expect(emf).toEqual([expect.objectContaining({ AuthFailures: 1, RunSucceeded: 0 })]);
    expect(stdout).not.toContain(EMULATOR_FREE_KEY);
  });

  it('verifies the archive on {"verify": true} and publishes VerifyFailures as many as it reports', async () => {
    const { results, stdout } = await invokeBundle([{ verify: true }]);
    expect(
      results.map((r) => r.ok),
      stdout.slice(-2000),
    ).toEqual([true]);
    const result = results[0]?.value as { ok: boolean; failures: unknown[]; days: unknown[] };
    expect(result.days).toHaveLength(60);
    const emf = stdout
      .split('\n')
      .filter((l) => l.includes('"CloudWatchMetrics"'))
      .map((l) => JSON.parse(l));
    expect(emf).toEqual([expect.objectContaining({ VerifyFailures: result.failures.length })]);
    expect(stdout).not.toContain(EMULATOR_PAID_KEY);
    // The bundled function wrote the weekly report (Plot and its DOM bundled too), as HTML.
    const page = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'reports/index.html' }));
    expect(page.ContentType).toBe('text/html; charset=utf-8');
    expect(await page.Body?.transformToString()).toContain(
      `data-figure="verify.records">${(result as unknown as { records: number }).records}<`,
    );
  });
  it('the verify job function, bundled as deployed: plan, every item of the plan, merge into the last full verify', async () => {
    // The steps as the state machine runs them, over the archive the runs above wrote.
    const planned = await invokeBundle([{ step: 'plan', jobId: 'audit-1' }], {}, verifyJobFn);
    const { plan, items } = await planAndItems<
      { jobId: string; head: unknown; itemsKey: string; items: number },
      { id: string }
    >(planned, s3);
    expect(items).toHaveLength(plan.items);
    expect(items.map((i) => i.id)).toContain('chain');
    const checked = await invokeBundle(
      items.map((item) => ({ step: 'item', jobId: plan.jobId, head: plan.head, item })),
      {},
      verifyJobFn,
    );
    expect(
      checked.results.map((r) => r.ok),
      checked.stdout.slice(-2000),
    ).toEqual(items.map(() => true));
    const merged = await invokeBundle([{ step: 'merge', jobId: plan.jobId }], {}, verifyJobFn);
    expect(merged.results, merged.stdout.slice(-2000)).toEqual([
      { ok: true, value: expect.objectContaining({ jobId: 'audit-1', items: items.length }) },
    ]);
    for (const step of [planned, checked, merged]) expect(step.calls.length).toBeGreaterThan(0);
    const last = await s3.client.send(
      new GetObjectCommand({ Bucket: s3.bucket, Key: 'reports/full-verify.json' }),
    );
    expect(JSON.parse((await last.Body?.transformToString()) ?? '{}')).toMatchObject({ jobId: 'audit-1' });
  }, 240_000);

  it('encodes inline though its PARQUET_ENCODER (unset: worker) asks for the worker: the bundle has no worker entry', async () => {
    // Every day past one chunk (1,024 rows), so the CLI would start its encoding worker for it.
    const heavy = await startEmulator({
      seed: 12,
      dataset: { quietDayRate: 0, normalMin: 1_500, normalMax: 1_600, heavyMin: 1_500, heavyMax: 1_600 },
    });
    const own = await ownStores();
    const { store } = own;
    try {
      const day = addDays(toDay(new Date()), -3);
      const before = new Date();
      const { results, stdout } = await invokeBundle([{ backfillDays: [day] }], {
        context: { apiBaseUrl: heavy.url },
        endpoints: own.endpoints,
      });
      expect(
        results.map((r) => r.ok),
        stdout.slice(-2000),
      ).toEqual([true]);
      expect(/^WORKERS (\d+)$/m.exec(stdout)?.[1]).toBe('0');
      const ids = await archivedIds(store);
      expect(ids.length).toBeGreaterThan(1_024);
      expect(new Set(ids).size).toBe(ids.length);
      const archived = new Set(ids);
      expect([...truthIds([day], before, heavy)].filter((id) => !archived.has(id))).toEqual([]);
    } finally {
      await Promise.allSettled([heavy.close(), own.close()]);
    }
  });

  it("runs with a killed CLI run's folder in its temp folder, and removes it", async () => {
    // What a killed `tunnel-archiver run` leaves: its run folder (owner pid and incarnation) and its
    // liveness lock, which nobody holds any more. The CLI asks the kernel about it; a Lambda never does.
    const tmp = mkdtempSync(join(outdir, 'tmp-killed-'));
    const incarnation = '3f0c2a9e-1b7d-4c55-9e2a-6d1f0b8a7c41';
    const leftover = join(tmp, 'tunnel-archiver-killed1');
    mkdirSync(leftover);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(join(leftover, 'owner.pid'), `${gone.stdout.toString()} ${incarnation}`);
    const lock = await tryKernelLock(join(livenessRoot(tmp), incarnation));
    if (lock.held) throw new Error('the planted liveness lock is held');
    await lock.lock.release();
    const own = await ownStores();
    try {
      const { results, stdout } = await invokeBundle(
        [{ backfillDays: [addDays(toDay(new Date()), -2)] }],
        { endpoints: own.endpoints },
        archiver,
        tmp,
      );
      expect(results, stdout.slice(-2000)).toEqual([{ ok: true, value: expect.anything() }]);
      // Judged by its pid, which no process holds: removed, and the run's own folder gone after it.
      expect(
        readdirSync(tmp).filter(
          (n) => n.startsWith('tunnel-archiver-') && !n.startsWith('tunnel-archiver-live'),
        ),
      ).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('the snapshot function, bundled as deployed: two scheduled invocations on Node 24 write live rows to active/ once', async () => {
    expect(snapshotBundle).not.toBe(bundle);
    // The active list held still (the shared emulator's sessions come and go in real time). The stack gives
    // the snapshot function the findings topic: its live rules publish what they find.
    const { frozen, store, endpoints, close } = await snapshotPeers();
    try {
      const { results, stdout } = await invokeBundle(
        [{ 'detail-type': 'Scheduled Event' }, { 'detail-type': 'Scheduled Event' }],
        // Each snapshot commits what it derived (the stack's default holds rows up to an hour).
        {
          context: { apiBaseUrl: frozen.url, snapshotCommitMinutes: 0 },
          endpoints,
        },
        snapshotFn,
      );
      expect(/^NODE (\d+)\./m.exec(stdout)?.[1]).toBe(String(LAMBDA_NODE_MAJOR));
      expect(
        results.map((r) => r.ok),
        stdout.slice(-2000),
      ).toEqual([true, true]);
      const [first, second] = results.map(
        (r) => r.value as { listed: number; events: Record<string, number> },
      );
      expect(first?.listed).toBeGreaterThan(0);
      expect(first?.events.seen).toBe(first?.listed);
      // The rows in active/ are the rows both snapshots derived, each once.
      const rows: string[] = [];
      const hmacs = new Set<string>();
      const page = await store.client.send(
        new ListObjectsV2Command({ Bucket: store.bucket, Prefix: 'active/' }),
      );
      for (const o of page.Contents ?? []) {
        const body = await store.client.send(new GetObjectCommand({ Bucket: store.bucket, Key: o.Key }));
        for (const r of await readActiveRows(
          await (body.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
        )) {
          rows.push(r.row_id);
          if (r.virtual_token_hmac) hmacs.add(r.virtual_token_hmac);
        }
      }
      // Keyed like history: the same secret, the same derivation, so active and history HMACs join.
      const key = tokenKeyFromSecret('k'.repeat(64), TOKEN_KEY_SECRET_ID);
      const expected = new Set(frozen.active().map((a) => tokenHmac(key, a.virtualToken)));
      expect(hmacs.size).toBeGreaterThan(0);
      for (const h of hmacs) expect(expected.has(h), h).toBe(true);
      const derived = [first, second].reduce(
        (n, r) => n + Object.values(r?.events ?? {}).reduce((a, b) => a + b, 0),
        0,
      );
      expect(rows).toHaveLength(derived);
      expect(new Set(rows).size).toBe(rows.length);
    } finally {
      await close();
    }
  });

  it('the snapshot function with a findings topic: each live finding is published once, with its runbook', async () => {
    // The same tunnels open at both snapshots: one opened between them would be a second new finding.
    const { frozen, store, sns, events, endpoints, close } = await snapshotPeers();
    try {
      // Every open tunnel is past a limit of 0 hours (the stack's `detections` context): each is a finding.
      const context = { apiBaseUrl: frozen.url, detections: { rules: { long_tunnel: { threshold: 0 } } } };
      const topic = templateVariables(deployedTemplate(context).json, snapshotFn.id).FINDINGS_TOPIC_ARN;
      expect(topic).toMatch(/^arn:aws:sns:/);
      const { results, stdout } = await invokeBundle(
        [{ 'detail-type': 'Scheduled Event' }, { 'detail-type': 'Scheduled Event' }],
        { context, endpoints },
        snapshotFn,
      );
      expect(
        results.map((r) => r.ok),
        stdout.slice(-2000),
      ).toEqual([true, true]);
      const listed = (results[0]?.value as { listed: number } | undefined)?.listed ?? 0;
      expect(listed).toBeGreaterThan(0);
      // One message per open tunnel, on the first snapshot only: the second finds each one claimed.
      expect(sns.published).toHaveLength(listed);
      // Each finding also went on the default bus, once as new, all of the findings' detail-type; the
      // second snapshot sees the same tunnels still open and leaves their revisions to detect.
      const details = events.entries.map((e) => {
        expect(e.DetailType).toBe('Tunnel Archiver Finding');
        return JSON.parse(e.Detail) as { status: string; rule_id: string; finding_id: string };
      });
      const fresh = details.filter((d) => d.status === 'new');
      expect(fresh).toHaveLength(listed);
      expect(new Set(fresh.map((d) => d.finding_id)).size).toBe(listed);
      expect(details.filter((d) => d.status === 'updated')).toEqual([]);
      expect(details.every((d) => d.rule_id === 'long_tunnel')).toBe(true);
      // Written before they were published, through the committer as detect writes them: a findings/ file.
      const page = await store.client.send(
        new ListObjectsV2Command({ Bucket: store.bucket, Prefix: 'findings/' }),
      );
      expect((page.Contents ?? []).length).toBeGreaterThan(0);
      // Every session open at the snapshots' instant, each the subject of one message.
      const sessions = new Set(frozen.active().map((a) => a.id));
      expect(listed).toBe(sessions.size);
      for (const m of sns.published) {
        expect(m.topicArn).toBe(topic);
        expect(m.subject).toContain('Tunnel open longer than the limit');
        expect(m.message).toContain('revoke the token if nobody claims it');
        expect(
          [...sessions].some((id) => m.message.includes(id)),
          m.message,
        ).toBe(true);
      }
      // And each open session is the subject of one of them.
      for (const id of sessions)
        expect(
          sns.published.filter((m) => m.message.includes(id)),
          id,
        ).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('the detect function, bundled as deployed: runs the rule in Athena, stores, claims and publishes its finding once', async () => {
    const own = await ownStores();
    const { store } = own;
    const sns = await startSnsStub();
    const events = await startEventBridgeStub();
    const now = Date.now();
    const athena = await startAthenaStub(() => [
      {
        entity: 's-long-1',
        token_hmac: 'a'.repeat(64),
        client_network: null,
        session_id: 's-long-1',
        first_seen_ms: String(now - 30 * 3_600_000),
        last_seen_ms: String(now - 3_600_000),
        hits: '1',
        record_ids: 'r-2,r-1',
      },
    ]);
    try {
      const shippedDetect = templateVariables(deployedTemplate().json, detectFn.id);
      const topic = shippedDetect.FINDINGS_TOPIC_ARN;
      const { results, stdout } = await invokeBundle(
        [{ rules: ['long_tunnel'] }, { rules: ['long_tunnel'] }],
        {
          endpoints: {
            ...own.endpoints,
            sns: sns.endpoint,
            athena: athena.endpoint,
            eventBridge: events.endpoint,
          },
        },
        detectFn,
      );
      expect(
        results.map((r) => r.ok),
        stdout.slice(-2000),
      ).toEqual([true, true]);
      expect(results.map((r) => (r.value as { due: string[] }).due)).toEqual([
        ['long_tunnel'],
        ['long_tunnel'],
      ]);
      // The rule ran in the workgroup, on the archive's database, once per evaluation.
      expect(athena.queries).toHaveLength(2);
      for (const q of athena.queries) {
        expect(q).toMatchObject({ workGroup: shippedDetect.WORKGROUP, database: shippedDetect.DATABASE });
        expect(q.sql).toContain('tunnel_sessions');
      }
      // Published once (the second evaluation finds it claimed), with the runbook, on the stack's topic.
      expect(sns.published).toHaveLength(1);
      // And put once on the default bus: the same finding, new.
      expect(events.entries).toHaveLength(1);
      expect(JSON.parse(events.entries[0]?.Detail ?? '{}')).toMatchObject({
        status: 'new',
        rule_id: 'long_tunnel',
      });
      expect(sns.published[0]?.topicArn).toBe(topic);
      expect(sns.published[0]?.subject).toContain('Tunnel open longer than the limit');
      expect(sns.published[0]?.message).toContain('s-long-1');
      expect(sns.published[0]?.message).toContain('revoke the token if nobody claims it');
      // Stored through the committer: a findings/ file.
      const page = await store.client.send(
        new ListObjectsV2Command({ Bucket: store.bucket, Prefix: 'findings/' }),
      );
      expect((page.Contents ?? []).length).toBeGreaterThan(0);
    } finally {
      await Promise.allSettled([own.close(), sns.close(), athena.close(), events.close()]);
    }
  });

  it('the fan-out function, bundled as deployed: plan, every item of the plan walked, finish', async () => {
    // Every day of the window more than one page (150-250 sessions, pages of at most 100), whatever the
    // date: the shared emulator has one heavy day in 14, so whether its window holds a day the plan splits
    // into ranges would depend on the day the suite runs.
    const paged = await startEmulator({
      seed: 13,
      maxPageSize: 100,
      dataset: { quietDayRate: 0, normalMin: 150, normalMax: 250, heavyMin: 150, heavyMax: 250 },
    });
    const own = await ownStores();
    const { store } = own;
    try {
      // A window of 3 days (the stack's `windowDays` context) keeps the walk short.
      const env: Deploy = { context: { apiBaseUrl: paged.url, windowDays: 3 }, endpoints: own.endpoints };
      // The steps as the state machine runs them: a plan, the map's items (ItemReader reads them from
      // S3), a finish given the plan; ranges of one page, so a day of several pages is split.
      const planned = await invokeBundle(
        [{ step: 'plan', orchestrationId: 'exec-1', rangePages: 1, leaseTtlSeconds: 3600 }],
        env,
        fanoutFn,
      );
      const { plan, items } = await planAndItems<
        { orchestrationId: string; lease: unknown; windowDays: number; itemsKey: string; itemCount: number },
        { kind: string }
      >(planned, store);
      expect(items).toHaveLength(plan.itemCount);
      expect(items.some((i) => i.kind === 'range')).toBe(true);
      const { orchestrationId, lease, windowDays } = plan;
      const walked = await invokeBundle(
        items.map((item) => ({ step: 'walk', orchestrationId, lease, windowDays, item })),
        env,
        fanoutFn,
      );
      expect(
        walked.results.map((r) => r.ok),
        walked.stdout.slice(-2000),
      ).toEqual(items.map(() => true));
      const finished = await invokeBundle([{ step: 'finish', plan }], env, fanoutFn);
      expect(finished.results, finished.stdout.slice(-2000)).toEqual([
        { ok: true, value: expect.objectContaining({ failedDays: [], digest: expect.anything() }) },
      ]);
      // Each step reached AWS: the plan its lease and items, the walks the archive, the finish the digest.
      for (const step of [planned, walked, finished]) expect(step.calls.length).toBeGreaterThan(0);
      expect(finished.calls.map((c) => c.command)).toContain('SignCommand');
    } finally {
      await Promise.allSettled([paged.close(), own.close()]);
    }
  }, 240_000);

  it('the Security Lake export, bundled as deployed: assumes the provider role and writes the archive to the lake', async () => {
    // The export sends settled, complete hours of the digest chain; the runs above wrote theirs this
    // hour. So the function reads an archive made a week ago by the CLI (the emulator's two days, then
    // a later run's digest that closes its hour), in a bucket of the archive's name on an S3 stand-in
    // of its own that also holds the lake's bucket: its calls name the template's buckets as in AWS.
    const made = mkdtempSync(join(outdir, 'lake-archive-'));
    const archive = await emulatorArchive(made);
    await closeArchiveHour(archive);
    const lakeS3 = await startS3rver(s3.bucket);
    await lakeS3.client.send(new CreateBucketCommand({ Bucket: LAKE_SOURCE.bucket }));
    for (const key of filesUnder(archive).filter((k) => /^(history|findings|digests)\//.test(k)))
      await lakeS3.client.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: readFileSync(join(archive, key)) }),
      );
    const sts = await startStsStub();
    AWSAccount.DUMMY_ACCOUNT.createKeyPair(sts.accessKeyId, sts.secretAccessKey);
    const db = await startDynalite();
    try {
      await ensureStateTable(localDynamoClient(db.endpoint), TABLE);
      const { results, stdout, calls } = await invokeBundle(
        [{}],
        { endpoints: { s3: lakeS3.endpoint, sts: sts.endpoint, dynamodb: db.endpoint } },
        lakeFn,
      );
      expect(results, stdout.slice(-2000)).toEqual([
        { ok: true, value: [expect.objectContaining({ hours: expect.any(Number) })] },
      ]);
      expect(((results[0]?.value ?? []) as { hours: number }[])[0]?.hours).toBeGreaterThanOrEqual(1);
      // The provider role, by its ARN and with its external id, assumed by the function's own role.
      expect(sts.assumed).toContainEqual(
        expect.objectContaining({ RoleArn: LAKE_SOURCE.roleArn, ExternalId: LAKE_EXTERNAL_ID }),
      );
      expect(calls).toContainEqual(
        expect.objectContaining({
          command: 'AssumeRoleCommand',
          input: expect.objectContaining({
            RoleArn: LAKE_SOURCE.roleArn,
            ExternalId: LAKE_EXTERNAL_ID,
          }),
        }),
      );
      // The lake's objects were written with the provider role's credentials, not the function's.
      const lakeWrites = calls.filter((c) => c.command === 'PutObjectCommand');
      expect(lakeWrites.length).toBeGreaterThan(0);
      expect(
        lakeWrites.every((c) => c.as === LAKE_SOURCE.roleArn && c.input.Bucket === LAKE_SOURCE.bucket),
      ).toBe(true);
    } finally {
      AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(sts.accessKeyId);
      await Promise.allSettled([sts.close(), lakeS3.close(), db.close()]);
    }
  }, 240_000);

  it('sees a worker thread that a module imported like the bundle starts (the count above can fail)', async () => {
    const probe = join(outdir, 'starts-a-worker.mjs');
    writeFileSync(
      probe,
      "import { Worker } from 'node:worker_threads';\n" +
        "export const handler = () => new Promise((r) => new Worker('', { eval: true }).on('exit', r));\n",
    );
    const { results, stdout } = await invokeBundle([{}], {}, { id: '', bundle: probe });
    expect(results.map((r) => r.ok)).toEqual([true]);
    expect(/^WORKERS (\d+)$/m.exec(stdout)?.[1]).toBe('1');
  });
});

describe('least privilege', () => {
  it('every function of the template made calls, each checked against its role above', () => {
    const functions = policies.resources('AWS::Lambda::Function').map(([id]) => id);
    expect(functions).toContain(lakeFn.id);
    expect(functions.filter((id) => !recorded.get(id))).toEqual([]);
  });

  it('every action a role grants was used by a recorded call or its service, or is kept for a written reason', () => {
    const report = roleReports(stack, policies, used);
    // The report: each role's unused actions and why each is kept.
    console.log(
      JSON.stringify(
        { roles: report, callsByFunction: Object.fromEntries(recorded), assumedCalls: assumedCalls.length },
        null,
        2,
      ),
    );
    const { unexplained, stale } = reportFailures(report);
    expect(unexplained).toEqual([]);
    // A reason for an action the role no longer grants, or that a call now uses, is stale.
    expect(stale).toEqual([]);
  });
});
