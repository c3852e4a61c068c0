import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { Template } from 'aws-cdk-lib/assertions';
import AWSAccount from 's3rver/lib/models/account.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../devkit/awsCallLog.ts';
import type { ContainerConfig } from '../../devkit/firstWeek/functionContainer.ts';
import { scheduleOf } from '../../devkit/firstWeek/scheduleOf.ts';
import { installSimulatedDate, noClockCorrection } from '../../devkit/firstWeek/simulatedDate.ts';
import { type Firing, simulateWeek } from '../../devkit/firstWeek/simulateWeek.ts';
import { type Container, type Invocation, startContainer } from '../../devkit/firstWeek/startContainer.ts';
import { startS3ControlStandIn } from '../../devkit/firstWeek/startS3ControlStandIn.ts';
import {
  templateName,
  type WeekDay,
  type WeekUsage,
  weekUsageSchema,
} from '../../devkit/firstWeek/weekUsage.ts';
import { synthesizedDefinition } from '../../devkit/infra/localStateMachine.ts';
import { STAND_IN_TOKEN_KEY } from '../../devkit/infra/standInsFor.ts';
import { startKmsStub } from '../../devkit/infra/startKmsStub.ts';
import { startSecretsStub } from '../../devkit/infra/startSecretsStub.ts';
import { type CfnTemplate, resolver } from '../../devkit/infra/templateArns.ts';
import { deployedEnv, type StandInEndpoints, templateVariables } from '../../devkit/infra/templateEnv.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { localDynamoClient, startDynalite } from '../../devkit/startDynalite.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../../devkit/startEmulator.ts';
import { startS3rver } from '../../devkit/startS3rver.ts';
import { OLDEST_DAY_SQL } from '../../lib/analytics/detect/ruleEngine.ts';
import { tokenKeyFromSecret } from '../../lib/archive/keys/tokenKeyFromSecret.ts';
import { readRecordIds } from '../../lib/archive/parquet/readHistoryParquet.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { ensureStateTable } from '../../lib/archive/state/ensureStateTable.ts';
import { objectStoreFromUrl } from '../../lib/archive/store/objectStoreFromUrl.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { accessesOf, namesFromEnv } from '../infra/callAccesses.ts';
import { LAKE_EXTERNAL_ID, LAKE_SOURCE } from '../infra/lakeSource.ts';
import { type Access, refusals, TemplatePolicies } from '../infra/roleAccess.ts';
import { startAthenaStub } from '../infra/startAthenaStub.ts';
import { startEventBridgeStub } from '../infra/startEventBridgeStub.ts';
import { startSnsStub } from '../infra/startSnsStub.ts';
import { startStsStub } from '../ocsf/startStsStub.ts';

/**
 * The first week of a deployed stack, simulated from its template: every scheduled rule fires on its own
 * rate for eight days (`FIRST_WEEK_DAYS=15`: fifteen, with a second weekly verify whose checksum jobs the
 * daily run judges) into the bundle or state machine it targets, each bundle in a warm container of its
 * own with exactly its template environment, on one simulated clock shared with the emulator. Every AWS call
 * is checked against the calling function's role; the week's usage is counted for the cost model.
 */
const DAYS = Number(process.env.FIRST_WEEK_DAYS ?? 8);
if (!Number.isInteger(DAYS) || DAYS < 8)
  throw new Error(`FIRST_WEEK_DAYS must be a whole number from 8: ${DAYS}`);
/** The emulator's page cap in this week: a day of a few hundred sessions is tens of pages. */
const PAGE_ROWS = 10;
/** The week's usage as the cost model reads it, committed beside the model. */
const COMMITTED_USAGE = fileURLToPath(new URL('../../bench/cost/firstWeekUsage.json', import.meta.url));
/** A Monday: the week is the same whatever day it runs. */
const START = new Date('2026-11-02T00:00:00Z');
/** The stack's opt-ins a team turns on (Security Lake) and the knob that makes one day bigger than a run. */
const CONTEXT = { securityLake: JSON.stringify({ sources: [LAKE_SOURCE] }), fanoutRangePages: 10 };

/**
 * The one simulated clock of this process, set at each firing: the emulator's, and the stand-ins' (S3 judges
 * a request's date against its own, and dates the objects the checksum jobs select by it).
 */
const sim = installSimulatedDate();
const setNow = (at: Date) => sim.set(at);

const dir = mkdtempSync(join(tmpdir(), 'ta-first-week-'));
const outdir = join(dir, 'cdk.out');

interface WeekLog {
  firings: number;
  /** Real time the week took. */
  realMs: number;
  failures: string[];
  /** Each function's invocations, by the template's logical id (the IAM check and the assertions read it). */
  invocations: Record<string, number>;
  /** What the cost model reads, by simulated day. */
  days: WeekDay[];
  /** The audit its FullVerifyCommand starts after the week (on demand, not on a schedule). */
  fullVerify: WeekDay;
  /** Distinct custom metrics (name and dimensions) put through EMF. */
  metrics: Set<string>;
  /** Each firing's outcome, by rule. */
  outcomes: Record<string, Invocation[]>;
}
const week: WeekLog = {
  firings: 0,
  realMs: 0,
  failures: [],
  invocations: {},
  days: Array.from({ length: DAYS }, (_, i) => ({
    day: toDay(new Date(START.getTime() + i * 86_400_000)),
    functions: {},
    stateMachines: {},
    recordsFetched: 0,
  })),
  fullVerify: {
    day: toDay(new Date(START.getTime() + DAYS * 86_400_000)),
    functions: {},
    stateMachines: {},
    recordsFetched: 0,
  },
  metrics: new Set(),
  outcomes: {},
};
/** Distinct calls of each function, for the IAM simulation. */
const distinctCalls = new Map<string, Map<string, RecordedCall>>();
let deployed: CfnTemplate;
let policies: TemplatePolicies;
const containers = new Map<string, Container>();
const envs = new Map<string, Record<string, string>>();
/** Which function's container runs each state machine. */
const machineFunction = new Map<string, string>();
let fullVerify: Invocation | undefined;
/** Each function's invocations by a rule, with the event it was given. */
const byFunction = new Map<string, { event: unknown; inv: Invocation }[]>();
const functionIds: string[] = [];
let firings: Firing[] = [];
const closers: (() => Promise<unknown>)[] = [];
let firstRunAt: Date | undefined;
/** Checksum jobs S3 has run (each lists and hashes the bucket: once a job). */
let jobsRun = 0;
let windowDays = 60;
let sessionsPerDay = 0;
let mustHold = new Map<string, string>();
let mayHold = new Map<string, string>();
const archivedIds: string[] = [];
let sns: Awaited<ReturnType<typeof startSnsStub>>;
let events: Awaited<ReturnType<typeof startEventBridgeStub>>;
let sts: Awaited<ReturnType<typeof startStsStub>>;
let s3control: Awaited<ReturnType<typeof startS3ControlStandIn>>;

/** The simulated day of an instant: a firing at midnight ends the day before it (the week's last is its end). */
const dayOf = (at: Date): WeekDay =>
  week.days[Math.min(DAYS - 1, Math.floor((at.getTime() - START.getTime() - 1) / 86_400_000))] as WeekDay;

function record(fnId: string, inv: Invocation, day: WeekDay, machine?: string): void {
  const memoryMb = Number(deployed.Resources[fnId]?.Properties?.MemorySize ?? 128);
  const name = templateName(fnId);
  const u = day.functions[name] ?? { invocations: 0, gbSeconds: 0, awsCalls: {}, logBytes: 0 };
  day.functions[name] = u;
  // Lambda bills each invocation's duration rounded up to the millisecond.
  const ms = inv.durationsMs.reduce((a, b) => a + Math.ceil(b), 0);
  u.invocations += inv.durationsMs.length;
  week.invocations[fnId] = (week.invocations[fnId] ?? 0) + inv.durationsMs.length;
  u.gbSeconds += (ms / 1000) * (memoryMb / 1024);
  const seen = distinctCalls.get(fnId) ?? new Map<string, RecordedCall>();
  distinctCalls.set(fnId, seen);
  for (const c of inv.calls) {
    const call = `${c.client.replace(/Client$/, '')}:${c.command.replace(/Command$/, '')}`;
    u.awsCalls[call] = (u.awsCalls[call] ?? 0) + 1;
    seen.set(JSON.stringify(c), c);
  }
  for (const line of inv.logs) {
    u.logBytes += Buffer.byteLength(line) + 1;
    if (!line.includes('"CloudWatchMetrics"')) continue;
    const emf = JSON.parse(line) as {
      _aws: {
        CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[];
      };
    } & Record<string, unknown>;
    for (const d of emf._aws.CloudWatchMetrics)
      for (const m of d.Metrics)
        for (const dims of d.Dimensions.length > 0 ? d.Dimensions : [[]])
          week.metrics.add([d.Namespace, m.Name, ...dims.map((k) => `${k}=${String(emf[k])}`)].join(' '));
  }
  if (machine !== undefined) {
    const sm = templateName(machine);
    const m = day.stateMachines[sm] ?? { executions: 0, transitions: 0 };
    day.stateMachines[sm] = m;
    m.executions += 1;
    m.transitions += inv.transitions;
    // The fan-out's Finish step puts the run's summary at `$.summary` of the execution's output.
    const seen = (inv.value as { summary?: { recordsSeen?: unknown } } | undefined)?.summary?.recordsSeen;
    if (typeof seen === 'number') day.recordsFetched += seen;
  }
}

/** Runs one firing as EventBridge would start its target. */
async function fire(f: Firing, n: number): Promise<Invocation> {
  const fnId = f.target.kind === 'function' ? f.target.id : machineFunction.get(f.target.id);
  const container = fnId === undefined ? undefined : containers.get(fnId);
  if (fnId === undefined || container === undefined)
    throw new Error(`${f.ruleId}: its target ${f.target.id} runs no function of the template`);
  const inv =
    f.target.kind === 'function'
      ? await container.invoke(f.at, f.event)
      : await container.execute(f.at, f.event, `${f.ruleId}-${n}`);
  record(fnId, inv, dayOf(f.at), f.target.kind === 'stateMachine' ? f.target.id : undefined);
  week.outcomes[f.ruleId] = [...(week.outcomes[f.ruleId] ?? []), inv];
  if (f.target.kind === 'function')
    byFunction.set(f.target.id, [...(byFunction.get(f.target.id) ?? []), { event: f.event, inv }]);
  if (!inv.ok)
    week.failures.push(
      `${f.ruleId} → ${f.target.id} at ${f.at.toISOString()}: ${inv.error?.name} ${inv.error?.message}`,
    );
  return inv;
}

beforeAll(async () => {
  const emulator = await startEmulator({
    seed: 31,
    clock: { now: () => sim.now() },
    maxPageSize: PAGE_ROWS,
    // A small team's days, and one giant day in the window: more pages than one map item walks.
    dataset: { normalMin: 5, normalMax: 30, heavyMin: 150, heavyMax: 220, heavyEveryDays: 60 },
  });
  closers.push(() => emulator.close());
  // The bundles as `cdk synth` makes them; the template a team deploys, with the emulator as its API.
  const bundled = synthApp({ bundle: true, outdir, context: CONTEXT }).template.toJSON() as CfnTemplate;
  const app = synthApp({ context: { ...CONTEXT, apiBaseUrl: emulator.url } });
  deployed = app.template.toJSON() as CfnTemplate;
  policies = new TemplatePolicies(deployed);

  const functions = Object.entries(deployed.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id]) => id)
    .filter((id) => bundled.Resources[id]?.Properties?.Code !== undefined);
  const archiverVars = templateVariables(deployed, functions.find((id) => id.startsWith('Archiver')) ?? '');
  const bucket = /^s3:\/\/([^/]+)\//.exec(archiverVars.ARCHIVE_DEST ?? '')?.[1] ?? '';
  const table = (archiverVars.ARCHIVE_STATE ?? '').replace(/^dynamodb:\/\//, '');

  const s3 = await startS3rver(bucket);
  s3.client.middlewareStack.use(noClockCorrection);
  await s3.client.send(new CreateBucketCommand({ Bucket: LAKE_SOURCE.bucket }));
  const dynamo = await startDynalite();
  await ensureStateTable(localDynamoClient(dynamo.endpoint), table);
  const lakeVars = templateVariables(deployed, functions.find((id) => id.startsWith('SecurityLake')) ?? '');
  const secrets = await startSecretsStub({
    [archiverVars.TUNNEL_API_KEY_SECRET_ID ?? '']: JSON.stringify({ apiKey: EMULATOR_PAID_KEY }),
    [archiverVars.TOKEN_KEY_SECRET_ID ?? '']: STAND_IN_TOKEN_KEY,
    [LAKE_SOURCE.externalIdSecret]: LAKE_EXTERNAL_ID,
  });
  expect(JSON.stringify(lakeVars)).toContain(LAKE_SOURCE.externalIdSecret);
  const kms = await startKmsStub();
  sns = await startSnsStub();
  events = await startEventBridgeStub();
  // No scheduled rule matches this team's week: each rule's query answers no rows. The warm-up's query
  // answers what Athena would: the oldest `dt` partition the archive holds, none before the first run.
  const athena = await startAthenaStub(async (sql) => {
    if (sql !== OLDEST_DAY_SQL) return [];
    const listed = await s3.client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'history/dt=', Delimiter: '/', MaxKeys: 1 }),
    );
    const oldest = /dt=(\d{4}-\d{2}-\d{2})\//.exec(listed.CommonPrefixes?.[0]?.Prefix ?? '')?.[1];
    return [{ oldest: oldest ?? null }];
  });
  sts = await startStsStub();
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(sts.accessKeyId, sts.secretAccessKey);
  s3control = await startS3ControlStandIn(objectStoreFromUrl(`s3://${bucket}/`, { s3Client: s3.client }));
  closers.push(
    () => s3.close(),
    () => dynamo.close(),
    () => secrets.close(),
    () => kms.close(),
    () => sns.close(),
    () => events.close(),
    () => athena.close(),
    () => sts.close(),
    () => s3control.close(),
    async () => AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(sts.accessKeyId),
  );
  const endpoints: StandInEndpoints = {
    s3: s3.endpoint,
    dynamodb: dynamo.endpoint,
    secretsManager: secrets.endpoint,
    kms: kms.endpoint,
    sns: sns.endpoint,
    eventBridge: events.endpoint,
    athena: athena.endpoint,
    sts: sts.endpoint,
  };

  // Each state machine of the template, run by the container of the one function its tasks invoke.
  const machines = new Map<
    string,
    NonNullable<Parameters<typeof startContainer>[0]['config']['stateMachine']>
  >();
  for (const [smId, r] of Object.entries(deployed.Resources)) {
    if (r.Type !== 'AWS::StepFunctions::StateMachine') continue;
    const definition = synthesizedDefinition(app.template as Template, smId);
    const states = Object.entries(definition.States);
    const map = states.find(([, s]) => s.ItemReader !== undefined)?.[0];
    const plan = states.find(([, s]) => s.Next === map)?.[0];
    const tasks: string[] = [];
    const fns = new Set<string>();
    const walk = (all: Record<string, Record<string, unknown>>) => {
      for (const [name, s] of Object.entries(all)) {
        if (s.Type === 'Task') {
          tasks.push(name);
          fns.add(String(s.Resource).split(':').at(-1) ?? '');
        }
        const inner = (s.ItemProcessor ?? s.Iterator) as { States?: Record<string, Record<string, unknown>> };
        if (inner?.States) walk(inner.States);
      }
    };
    walk(definition.States);
    const [fnId] = [...fns];
    if (map === undefined || plan === undefined || fns.size !== 1 || fnId === undefined)
      throw new Error(`${smId}: not a plan, a Distributed Map and one function's tasks`);
    machineFunction.set(smId, fnId);
    machines.set(fnId, { definition, plan, map, tasks, s3: { endpoint: s3.endpoint, bucket } });
  }

  for (const id of functions) {
    const props = deployed.Resources[id]?.Properties ?? {};
    functionIds.push(id);
    const key = String((bundled.Resources[id]?.Properties?.Code as { S3Key?: string } | undefined)?.S3Key);
    const fnDir = join(dir, id);
    mkdirSync(fnDir);
    const env = {
      ...deployedEnv(deployed, id, endpoints),
      // S3 Control (the weekly verify's checksum jobs) has no variable in StandInEndpoints.
      AWS_ENDPOINT_URL_S3_CONTROL: s3control.endpoint,
    };
    envs.set(id, env);
    const sm = machines.get(id);
    const container = startContainer({
      functionId: id,
      env,
      dir: fnDir,
      cwd: outdir,
      config: {
        bundle: join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs'),
        functionName: id,
        timeoutSeconds: Number(props.Timeout ?? 3),
        memoryMb: Number(props.MemorySize ?? 128),
        ...(sm ? { stateMachine: sm } : {}),
      },
    });
    containers.set(id, container);
    closers.push(() => container.close());
  }

  // The week.
  firings = simulateWeek(scheduleOf(deployed), START, DAYS);
  const realStart = sim.realNow();
  const tokenKey = tokenKeyFromSecret(STAND_IN_TOKEN_KEY, archiverVars.TOKEN_KEY_SECRET_ID ?? '');
  // Targets due at one instant start together, as EventBridge starts them.
  for (let i = 0; i < firings.length; ) {
    const at = firings[i]?.at.getTime();
    const group: [Firing, number][] = [];
    for (; i < firings.length && firings[i]?.at.getTime() === at; i++) group.push([firings[i] as Firing, i]);
    setNow(new Date(at ?? 0));
    // S3 Batch Operations finishes a job it started before the next event of the week.
    if (s3control.created.length > jobsRun) {
      jobsRun = s3control.created.length;
      await s3control.runPending();
    }
    await Promise.all(group.map(([f, n]) => fire(f, n)));
    week.firings += group.length;
    for (const [f] of group) if (f.target.kind === 'stateMachine') firstRunAt ??= f.at;
  }
  // What the API had exposed two days (its ingestion lag) before the first scheduled run, which backfills
  // the whole window (the archive must hold each), and all the API has exposed by the end of the week,
  // window days since dropped included (the archive may hold no other).
  const ids = (days: string[], at: Date) =>
    new Map(days.flatMap((d) => emulator.truth(d, at).map((r) => [recordId(r, tokenKey), d] as const)));
  windowDays = Number(archiverVars.WINDOW_DAYS ?? 60);
  const firstRun = firstRunAt ?? START;
  const settled = new Date(firstRun.getTime() - 2 * 86_400_000);
  mustHold = ids(dayRange(addDays(toDay(firstRun), -(windowDays - 1)), toDay(firstRun)), settled);
  const weekEnd = new Date(START.getTime() + DAYS * 86_400_000);
  // Whatever the API showed at any run of the week (a day leaves the window before the week ends; a
  // record's revision may change): the records of each run's window at its instant, and at the week's end.
  mayHold = new Map();
  const runInstants = [
    ...new Set(firings.filter((f) => f.target.kind === 'stateMachine').map((f) => f.at.getTime())),
  ].map((t) => new Date(t));
  for (const at of [...runInstants, weekEnd])
    for (const [id, d] of ids(dayRange(addDays(toDay(at), -(windowDays - 1)), toDay(at)), at))
      mayHold.set(id, d);
  const windowAtEnd = dayRange(addDays(toDay(weekEnd), -windowDays), addDays(toDay(weekEnd), -1));
  sessionsPerDay =
    windowAtEnd.reduce((n, d) => n + emulator.truth(d, weekEnd).length, 0) / windowAtEnd.length;

  week.realMs = sim.realNow() - realStart;
  console.log('WEEK', JSON.stringify({ realMs: week.realMs, failures: week.failures.slice(0, 20) }));
  // The audit a team starts after its first week: the stack's FullVerifyCommand, run as written.
  const outputs = (app.template.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs;
  if (outputs.FullVerifyCommand === undefined)
    throw new Error(`no FullVerifyCommand in ${Object.keys(outputs)}`);
  const command = String(resolver(deployed)(outputs.FullVerifyCommand.Value));
  const input = /--input '([^']+)'/.exec(command)?.[1];
  const smId = [...machineFunction.keys()].find((id) => command.includes(id));
  const end = new Date(START.getTime() + DAYS * 86_400_000 + 60_000);
  if (input === undefined || smId === undefined) throw new Error(`no FullVerifyCommand: ${command}`);
  setNow(end);
  const verifyInput = JSON.parse(input.replace('YYYY-MM-DD', toDay(end))) as unknown;
  const fnId = machineFunction.get(smId) ?? '';
  fullVerify = await containers.get(fnId)?.execute(end, verifyInput, 'full-verify');
  if (fullVerify) record(fnId, fullVerify, week.fullVerify, smId);

  // The archive as the week left it.
  let token: string | undefined;
  do {
    const page = await s3.client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'history/', ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      if (!o.Key?.endsWith('.parquet')) continue;
      const body = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key }));
      archivedIds.push(
        ...(await readRecordIds((await body.Body?.transformToByteArray()) ?? new Uint8Array())),
      );
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}, 3_600_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  sim.restore();
  rmSync(dir, { recursive: true, force: true });
});

/** The results of the function's invocations given `event` (matched by its JSON). */
const resultsOf = (fnPrefix: string, event: unknown) =>
  [...byFunction.entries()]
    .filter(([id]) => id.startsWith(fnPrefix))
    .flatMap(([, list]) => list)
    .filter((x) => JSON.stringify(x.event) === JSON.stringify(event))
    .map((x) => x.inv);

describe('the first week of the stack, simulated from its template', () => {
  it('fires every scheduled rule of the template into its target, and every firing succeeds', () => {
    expect(week.failures).toEqual([]);
    expect(week.firings).toBe(firings.length);
    // Every rule fired, each on its own rate: a target that never ran is a rule the week did not exercise.
    for (const rule of scheduleOf(deployed))
      expect(week.outcomes[rule.ruleId]?.length ?? 0, rule.ruleId).toBe(
        Math.floor((DAYS * 86_400_000) / rule.everyMs) * rule.targets.length,
      );
    // Every function of the template ran, by a rule or by a state machine's task.
    expect(functionIds.filter((id) => !week.invocations[id])).toEqual([]);
  });

  it('archives every record the API exposed once: none twice, none the API never had', () => {
    expect(archivedIds.length).toBeGreaterThan(100);
    expect(new Set(archivedIds).size).toBe(archivedIds.length);
    const archived = new Set(archivedIds);
    const missing: Record<string, number> = {};
    for (const [id, day] of mustHold) if (!archived.has(id)) missing[day] = (missing[day] ?? 0) + 1;
    expect(missing).toEqual({});
    expect(archivedIds.filter((id) => !mayHold.has(id))).toEqual([]);
  });

  it('walks the giant day in page ranges: the first run has more walks than the window has days', () => {
    const runs = firings.filter((f) => f.target.kind === 'stateMachine').map((f) => f.ruleId);
    const first = week.outcomes[runs[0] ?? '']?.[0];
    // The plan, one walk a due day (or more, one a page range of a day bigger than one walk), the finish.
    expect(first?.durationsMs.length).toBeGreaterThan(windowDays + 2);
  });

  it('writes the weekly verify and its report, passing: the checksum baseline, then the first checksum job', () => {
    const verifies = resultsOf('Archiver', { verify: true });
    expect(verifies).toHaveLength(Math.floor(DAYS / 7));
    for (const v of verifies) {
      expect(v.ok, JSON.stringify(v.error)).toBe(true);
      expect((v.value as { failures: unknown[] }).failures).toEqual([]);
      expect(v.calls.map((c) => c.input.Key)).toContain('reports/index.html');
    }
    // The first weekly verify records the checksum baseline (lib/integrity/verify/verifyWeekly.ts); the rotation's
    // jobs start with the second.
    const jobs = verifies.map((v) => v.calls.filter((c) => c.command === 'CreateJobCommand').length);
    expect(jobs[0]).toBe(0);
    for (const n of jobs.slice(1)) expect(n).toBeGreaterThan(0);
    expect(s3control.created.length).toBe(jobs.reduce((a, b) => a + b, 0));
  });

  it('judges the checksum reports every day: the second week’s jobs judged once done, and nothing fails', () => {
    const judged = resultsOf('Archiver', { checksumReports: true });
    expect(judged).toHaveLength(DAYS);
    for (const j of judged) {
      expect(j.ok, JSON.stringify(j.error)).toBe(true);
      expect(j.value).toMatchObject({ failures: 0 });
    }
    // Every job S3 ran was judged, by a daily run after it finished.
    const total = judged.reduce((n, j) => n + Number((j.value as { judged: number }).judged), 0);
    expect(total).toBe(s3control.created.length);
  });

  it('delivers each finding once: one message on the topic and one new event on the bus', () => {
    expect(sns.published.length).toBeGreaterThan(0);
    const fresh = events.entries
      .map((e) => JSON.parse(e.Detail) as { status: string; finding_id: string })
      .filter((d) => d.status === 'new');
    expect(fresh.length).toBe(sns.published.length);
    expect(new Set(fresh.map((d) => d.finding_id)).size).toBe(fresh.length);
  });

  it('runs the full verify job its FullVerifyCommand starts, and it succeeds', () => {
    expect(fullVerify?.ok, JSON.stringify(fullVerify?.error)).toBe(true);
    expect(fullVerify?.value).toMatchObject({
      jobId: `audit-${toDay(new Date(START.getTime() + DAYS * 86_400_000))}`,
    });
  });

  it('exports the settled hours to Security Lake, as the provider role', () => {
    const lake = [...byFunction.entries()].find(([id]) => id.startsWith('SecurityLake'))?.[1] ?? [];
    const hours = lake.flatMap((x) => (x.inv.value as { hours: number }[] | undefined) ?? []);
    expect(hours.reduce((n, h) => n + h.hours, 0)).toBeGreaterThan(0);
    expect(sts.assumed.length).toBeGreaterThan(0);
    const writes = lake.flatMap((x) => x.inv.calls).filter((c) => c.command === 'PutObjectCommand');
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((c) => c.as === LAKE_SOURCE.roleArn && c.input.Bucket === LAKE_SOURCE.bucket)).toBe(
      true,
    );
  });

  it("makes only calls its function's role allows, conditions evaluated", async () => {
    expect(await refusedCalls(policies)).toEqual([]);
    expect([...distinctCalls.values()].reduce((n, m) => n + m.size, 0)).toBeGreaterThan(0);
  });

  it('counts the week for the cost model: the calls the committed usage holds are the ones this week made', () => {
    const usage: WeekUsage = weekUsageSchema.parse({
      start: START.toISOString(),
      sessionsPerDay,
      pageRows: PAGE_ROWS,
      functions: Object.fromEntries(
        functionIds.map((id) => {
          const props = deployed.Resources[id]?.Properties ?? {};
          const arch = (props.Architectures as string[] | undefined)?.[0] ?? 'x86_64';
          return [templateName(id), { memoryMb: Number(props.MemorySize ?? 128), architecture: arch }];
        }),
      ),
      stateMachineFunctions: Object.fromEntries(
        [...machineFunction].map(([sm, fn]) => [templateName(sm), templateName(fn)]),
      ),
      days: week.days,
      fullVerify: week.fullVerify,
      customMetrics: [...week.metrics].sort(),
      batchOperations: { jobs: s3control.created.length, objects: 0 },
      findings: sns.published.length,
    });
    const file = process.env.FIRST_WEEK_USAGE ?? join(dir, 'first-week-usage.json');
    writeFileSync(file, `${JSON.stringify(usage, null, 2)}\n`);
    console.log(`FIRST_WEEK_USAGE written to ${file}`);
    // The cost model (bench/cost/monthlyCost.ts) reads the usage committed beside it: what the schedules
    // decide (each rule's function's invocations, each state machine's executions, by day) must be this week's.
    const committed = weekUsageSchema.parse(JSON.parse(String(readFileSync(COMMITTED_USAGE))));
    // A longer run (FIRST_WEEK_DAYS) is measured, not held: the committed week is the default's.
    if (committed.days.length !== DAYS) return;
    // (A state machine's function is invoked once a map item, which the product plans: measured, not held.)
    const tasks = new Set(Object.values(usage.stateMachineFunctions));
    const schedule = (u: WeekUsage) =>
      u.days.map((d) => ({
        functions: Object.fromEntries(
          Object.entries(d.functions)
            .filter(([k]) => !tasks.has(k))
            .map(([k, f]) => [k, f.invocations]),
        ),
        executions: Object.fromEntries(Object.entries(d.stateMachines).map(([k, m]) => [k, m.executions])),
      }));
    expect(schedule(committed)).toEqual(schedule(usage));
    expect(committed.sessionsPerDay).toBe(usage.sessionsPerDay);
    expect(committed.customMetrics).toEqual(usage.customMetrics);
  });
});

/** Every recorded call of the week refused by its function's role in `p`, named `<function>: <call> needs ...`. */
async function refusedCalls(p: TemplatePolicies): Promise<string[]> {
  const out: string[] = [];
  for (const [fnId, calls] of distinctCalls) {
    const stackEnv =
      (
        p.resolved.Resources[fnId]?.Properties?.Environment as
          | { Variables?: Record<string, unknown> }
          | undefined
      )?.Variables ?? {};
    const names = namesFromEnv(envs.get(fnId) ?? {}, stackEnv);
    const state = {};
    const accesses: Access[] = [];
    // A call signed as a role the function assumed is that role's to allow (the lake's provider role).
    for (const call of calls.values())
      if (call.as === undefined) accesses.push(...(await accessesOf(call, names, p, state)));
    out.push(...(await refusals(p, fnId, p.roleOf(fnId), accesses)));
  }
  return out;
}

describe('a first week that fails names what broke it', () => {
  it('a grant removed from a role: the calls it allowed are refused, naming the function and the action', async () => {
    // The state table's grant of the snapshot function's role, without its LeadingKeys condition checked
    // away: the statement goes, and the snapshot's DynamoDB calls are refused.
    const mutated = structuredClone(deployed);
    const snapshotRole = policies.roleOf(functionIds.find((id) => id.startsWith('Snapshots')) ?? '');
    for (const r of Object.values(mutated.Resources)) {
      if (r.Type !== 'AWS::IAM::Policy') continue;
      if (!JSON.stringify(r.Properties?.Roles).includes(snapshotRole)) continue;
      const doc = r.Properties?.PolicyDocument as { Statement: { Action: unknown }[] };
      doc.Statement = doc.Statement.filter((st) => !JSON.stringify(st.Action).includes('dynamodb:GetItem'));
    }
    const refused = await refusedCalls(new TemplatePolicies(mutated));
    console.log(`MUTATION grant: ${refused[0]}`);
    expect(
      refused.some((m) => /^SnapshotsFunction\w+: DynamoDBClient GetItem needs dynamodb:GetItem/.test(m)),
    ).toBe(true);
  });

  it('a schedule with its target removed: the week refuses to start, naming the rule', () => {
    const mutated = structuredClone(deployed);
    const rule = Object.entries(mutated.Resources).find(([id]) => id.startsWith('IntegrityChecksumReports'));
    if (rule?.[1].Properties) rule[1].Properties.Targets = [];
    expect(() => scheduleOf(mutated)).toThrow(
      /^IntegrityChecksumReportsSchedule\w+: a schedule with no target/,
    );
  });

  it('a function without one of its template variables: its first invocation fails, naming the function', async () => {
    const id = functionIds.find((f) => f.startsWith('Snapshots')) ?? '';
    const { ARCHIVE_STATE: _dropped, ...env } = envs.get(id) ?? {};
    const fnDir = join(dir, 'mutated-env');
    mkdirSync(fnDir);
    const bundle = JSON.parse(String(readFileSync(join(dir, id, 'container.json')))) as ContainerConfig;
    const container = startContainer({ functionId: id, env, dir: fnDir, cwd: outdir, config: bundle });
    try {
      const failed = await container.invoke(START, {}).then(
        (inv) => `${id}: ${inv.ok ? 'succeeded' : `${inv.error?.name} ${inv.error?.message}`}`,
        (e: Error) => e.message,
      );
      console.log(`MUTATION env: ${failed.slice(0, 400)}`);
      expect(failed).toMatch(
        new RegExp(`^${id}: the bundle failed with its template environment: .*ARCHIVE_STATE`, 's'),
      );
    } finally {
      await container.close();
    }
  });
});
