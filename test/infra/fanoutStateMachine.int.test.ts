import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesizedDefinition } from '../../devkit/infra/localStateMachine.ts';
import type { CfnTemplate } from '../../devkit/infra/templateArns.ts';
import { templateVariables } from '../../devkit/infra/templateEnv.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { LAMBDA_NODE, RUN_TS } from '../../devkit/lambdaNode.ts';
import { s3rverClient } from '../../devkit/startS3rver.ts';
import { FANOUT_RESULTS_PREFIX } from '../../infra/constructs/fanoutOrchestration.ts';
import { readRecordIds } from '../../lib/archive/parquet/readHistoryParquet.ts';
import type { Day } from '../../lib/foundation/clock/day.ts';
import { distributedJsonMap } from './distributedJsonMap.ts';

const WINDOW_DAYS = 8;
/**
 * The simulated time the orchestrations start at (the handlers' and the emulator's clock). Its window holds two
 * heavy days inside it, neither today nor the window's first day, with 195 and 168 ended sessions (10 a page):
 * with ranges of 10 pages each is split in two, whatever the day or the hour the test runs.
 */
const SIMULATED_START = '2026-05-19T12:00:00.000Z';
const { stack, template } = synthApp({ context: { fanoutRangePages: 10, windowDays: WINDOW_DAYS } });
const machineId = stack.getLogicalId(stack.fanout.stateMachine.node.defaultChild as never);

/** The state machine's definition as synthesized, its references resolved to stand-in names. */
const definition = () => synthesizedDefinition(template, machineId);

interface ChildResult {
  before: string;
  after: string;
  today: Day;
  first: { summary: Record<string, unknown> } & Record<string, unknown>;
  second: { summary: Record<string, unknown> } & Record<string, unknown>;
  third: { summary: Record<string, unknown> } & Record<string, unknown>;
  firstLog: {
    walks: string[];
    errors: { id: string; name: string }[];
    finishCalls: number;
    storm: number;
    rangesInFlightMax: number;
  };
  secondWalks: string[];
  failedOnce?: string;
  brokenRange?: string;
  stormOver: string;
  error?: { name: string; message: string };
  truthBefore: string[];
  truthAfter: string[];
  verify: { failures: unknown[] };
  s3: { endpoint: string; bucket: string };
}

const dir = mkdtempSync(join(tmpdir(), 'ta-fanout-'));
let child: ChildProcess;
let result: ChildResult;
let client: S3Client;

beforeAll(async () => {
  const file = join(dir, 'definition.json');
  writeFileSync(file, JSON.stringify(definition()));
  // The fan-out function's environment exactly as the template sets it: its handler runs with nothing else.
  const envFile = join(dir, 'template-env.json');
  const fanoutId = stack.getLogicalId(stack.fanout.fn.node.defaultChild as never);
  writeFileSync(envFile, JSON.stringify(templateVariables(template.toJSON() as CfnTemplate, fanoutId)));
  // aws-local-stepfunctions 3 needs Node >= 22: the Lambda's own Node runs it.
  child = spawn(
    LAMBDA_NODE,
    [RUN_TS, 'test/infra/fanoutChild.ts', file, String(WINDOW_DAYS), SIMULATED_START, envFile],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  let out = '';
  result = await new Promise<ChildResult>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (line) resolve(JSON.parse(line.slice('RESULT '.length)));
    });
    // 'close' comes after the output and also after a failed spawn ('error'), where 'exit' never comes.
    child.on('error', reject);
    child.on('close', (code) =>
      reject(new Error(`the runner exited (${code}) without a result: ${out.slice(-2000)}`)),
    );
  });
  client = s3rverClient(result.s3.endpoint);
}, 300_000);

afterAll(async () => {
  // A runner that never gave its result (it waits for an event that never came) is stopped, not awaited.
  if (result === undefined) child?.kill('SIGKILL');
  child?.stdin?.end();
  if (child?.exitCode === null && child.signalCode === null && child.pid !== undefined)
    await new Promise((r) => child?.once('close', r));
  rmSync(dir, { recursive: true, force: true });
});

async function objectKeys(prefix: string): Promise<string[]> {
  const page = await client.send(new ListObjectsV2Command({ Bucket: result.s3.bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key as string);
}

describe('the fan-out state machine, as synthesized, under aws-local-stepfunctions with the real handlers', () => {
  it('runs to its end through a 429 storm, a retried range and a retried finish', () => {
    expect(result.error).toBeUndefined();
    const log = result.firstLog;
    // The storm: several items were rate-limited and retried by the map, none failed for it.
    expect(log.errors.filter((e) => e.name === 'Archiver.RATE_LIMITED').length).toBeGreaterThanOrEqual(4);
    expect(result.stormOver).toBe('over');
    // One range committed, lost its response, and was walked again.
    expect(result.failedOnce).toMatch(/-r\d+$/);
    expect(log.walks.filter((id) => id === result.failedOnce).length).toBeGreaterThanOrEqual(2);
    expect(log.finishCalls).toBe(2);
    expect(result.first.summary).toMatchObject({
      failedDays: [],
      deferredDays: [],
      daysScanned: WINDOW_DAYS,
    });
  });

  it('split the giant days into page ranges, walked by several workers', () => {
    const ranges = [...new Set(result.firstLog.walks.filter((id) => /-r\d+$/.test(id)))];
    const giant = new Set(ranges.map((id) => id.slice(0, 10)));
    expect([...giant].sort()).toEqual(['2026-05-14', '2026-05-17']);
    for (const day of giant) expect(ranges.filter((id) => id.startsWith(day)).length).toBe(2);
    // Two ranges were walked at the same moment, by two workers of the map.
    expect(result.firstLog.rangesInFlightMax).toBeGreaterThanOrEqual(2);
  });

  it('isolates a range that fails on every attempt: the map goes on, the finish records its day as failed', () => {
    const broken = result.brokenRange as string;
    expect(broken).toMatch(/-r\d+$/);
    const day = broken.slice(0, 10);
    // The orchestration ended (its finish ran), the broken range's day alone failed, the other items committed:
    // the other range of the same day and the other days were walked and archived.
    expect(result.second.summary).toMatchObject({
      failedDays: [{ day, code: 'INTERNAL', message: expect.stringContaining(broken) }],
      recordsNew: expect.any(Number),
    });
    expect(result.second.summary.recordsNew).toBeGreaterThan(0);
    const others = new Set(result.secondWalks.filter((id) => id !== broken));
    expect([...others].filter((id) => id.startsWith(day))).toHaveLength(1);
    expect([...others].filter((id) => !id.startsWith(day)).length).toBeGreaterThanOrEqual(3);
    // The next orchestration walks the day again and it is no longer failed.
    expect(result.third.summary).toMatchObject({ failedDays: [], deferredDays: [] });
  });

  it('writes one digest per orchestration, the retried finish included', async () => {
    const digests = (await objectKeys('digests/')).filter((k) => /\d+.*\.json$/.test(k));
    expect(result.first.summary).toMatchObject({ digest: { seq: 1 } });
    expect(result.second.summary).toMatchObject({ digest: { seq: 2 } });
    expect(result.third.summary).toMatchObject({ digest: { seq: 3 } });
    expect(digests.length).toBe(3);
  });

  it('archives every record exactly once (a later orchestration adds nothing twice)', async () => {
    const ids: string[] = [];
    for (const key of await objectKeys('history/')) {
      const o = await client.send(new GetObjectCommand({ Bucket: result.s3.bucket, Key: key }));
      ids.push(
        ...(await readRecordIds(
          await (o.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
        )),
      );
    }
    // No id twice, nothing that did not exist, everything that existed when the first orchestration began.
    expect(new Set(ids).size).toBe(ids.length);
    const upper = new Set(result.truthAfter);
    expect(ids.filter((id) => !upper.has(id))).toEqual([]);
    const archived = new Set(ids);
    expect(result.truthBefore.filter((id) => !archived.has(id))).toEqual([]);
    // The summary counts what each item's last attempt added: the retried range's lost attempt is not in it.
    expect(result.first.summary.recordsNew).toBeLessThan(ids.length);
  });

  it('passes verify afterwards: the digest chain, every file, no id twice, nothing missing from the API', () => {
    expect(result.verify.failures).toEqual([]);
  });

  it('covers in the template what only AWS runs: ItemReader, ResultWriter, tolerated failures, MaxConcurrency', () => {
    const walk = definition().States.Walk as Record<string, unknown>;
    expect(walk).toMatchObject({
      ...distributedJsonMap(FANOUT_RESULTS_PREFIX),
      MaxConcurrency: 4,
      ToleratedFailurePercentage: 100,
    });
  });
});
