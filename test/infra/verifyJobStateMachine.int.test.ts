import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesizedDefinition } from '../../devkit/infra/localStateMachine.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { LAMBDA_NODE, RUN_TS } from '../../devkit/lambdaNode.ts';
import { VERIFY_JOB_MAP_RESULTS_PREFIX } from '../../infra/constructs/verifyJob.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { readLastFullVerify } from '../../lib/integrity/verify/mergeVerifyJob.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';
import { type VerifyJobResult, verifyJobKeys } from '../../lib/integrity/verify/verifyJobTypes.ts';
import { historyKeys, startSignedArchive } from '../digest/proofKit.ts';
import type { World } from '../support/engineKit.ts';
import { distributedJsonMap } from './distributedJsonMap.ts';

const { stack, template } = synthApp();
const machineId = stack.getLogicalId(stack.verifyJob.stateMachine.node.defaultChild as never);

const definition = () => synthesizedDefinition(template, machineId);

interface Execution {
  output?: { result: Omit<VerifyJobResult, 'failures'> & { failures: number } };
  error?: { name: string; message: string; cause?: string };
  checks: { id: string; reused: boolean; failures: number }[];
}

let world: World;
let scratch: string;
let dirs: { clean: string; tampered: string; resumed: string };
let runs: Execution[];
let changed: string;
let planted: string;

/** Runs executions in order under the Lambda's Node (aws-local-stepfunctions needs Node >= 22). */
async function runExecutions(
  list: { dir: string; jobId: string; failItem?: string }[],
): Promise<Execution[]> {
  const file = join(scratch, 'definition.json');
  await writeFile(file, JSON.stringify(definition()));
  const child = spawn(LAMBDA_NODE, [RUN_TS, 'test/infra/verifyJobChild.ts', file, JSON.stringify(list)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  // 'close' comes after the output and also after a failed spawn ('error'), where 'exit' never comes.
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the runner exited (${code}) without a result: ${out.slice(-2000)}`);
  return JSON.parse(line.slice('RESULT '.length));
}

beforeAll(async () => {
  let archiveDir: string;
  ({ world, dir: archiveDir } = await startSignedArchive());
  scratch = await mkdtemp(join(tmpdir(), 'ta-verify-job-'));
  dirs = {
    clean: join(scratch, 'clean'),
    tampered: join(scratch, 'tampered'),
    resumed: join(scratch, 'resumed'),
  };
  for (const dir of Object.values(dirs)) await cp(archiveDir, dir, { recursive: true });
  // The oldest file of the archive gets one byte changed; a file no digest lists is planted under findings/.
  changed = (await historyKeys(dirs.tampered))[0] as string;
  const bytes = await readFile(join(dirs.tampered, changed));
  const at = Math.floor(bytes.length / 2);
  bytes[at] = (bytes[at] ?? 0) ^ 0x01;
  await writeFile(join(dirs.tampered, changed), bytes);
  planted = `findings/dt=${changed.split('/')[1]?.slice(3)}/planted.parquet`;
  await cp(join(dirs.clean, changed), join(dirs.tampered, planted));
  // Planted before the newest digest (one written after it awaits the next digest, as in the weekly verify).
  const before = new Date(Date.now() - 3_600_000);
  await utimes(join(dirs.tampered, planted), before, before);
  runs = await runExecutions([
    { dir: dirs.clean, jobId: 'clean' },
    { dir: dirs.tampered, jobId: 'tampered' },
    // Stopped part-way: one folder's worker fails every attempt, so the job fails; started again, it resumes.
    { dir: dirs.resumed, jobId: 'audit', failItem: 'last' },
    { dir: dirs.resumed, jobId: 'audit' },
  ]);
}, 600_000);

afterAll(async () => {
  await world?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const failureSet = (failures: { kind: string; object?: string }[]) =>
  failures.map((f) => `${f.kind} ${f.object}`).sort();

describe('the verify job state machine, as synthesized, under aws-local-stepfunctions with the real handler', () => {
  it('passes a clean archive, with the figures of verify', async () => {
    const [clean] = runs;
    expect(clean?.error).toBeUndefined();
    const verified = await verifyArchive(
      { objects: createFileObjectStore(dirs.clean), clock: new ManualClock(world.clock.now()) },
      { windowDays: 60 },
    );
    expect(verified.failures).toEqual([]);
    expect(clean?.output?.result).toMatchObject({
      jobId: 'clean',
      ok: true,
      failures: 0,
      files: verified.files,
      rows: verified.rows,
      records: verified.records,
      digests: verified.digests,
      head: verified.head,
    });
    // One item a folder plus the chain, each checked once.
    expect(clean?.checks.length).toBe(clean?.output?.result.items);
    expect(clean?.checks.every((c) => !c.reused)).toBe(true);
  });

  it('names a changed byte in the oldest file and a file planted under findings/, as verify does', async () => {
    const [, tampered] = runs;
    expect(tampered?.output?.result).toMatchObject({ ok: false });
    const stored = await readLastFullVerify(createFileObjectStore(dirs.tampered));
    expect(stored?.jobId).toBe('tampered');
    expect(tampered?.output?.result.failures).toBe(stored?.failures.length);
    // The changed byte may also leave its page unreadable (a `rows` failure): both name the file.
    expect(failureSet(stored?.failures ?? [])).toEqual(
      expect.arrayContaining([`hash ${changed}`, `unlisted ${planted}`]),
    );
    expect(new Set((stored?.failures ?? []).map((f) => f.object))).toEqual(new Set([changed, planted]));
    const verified = await verifyArchive(
      { objects: createFileObjectStore(dirs.tampered), clock: new ManualClock(world.clock.now()) },
      { windowDays: 60 },
    );
    expect(failureSet(stored?.failures ?? [])).toEqual(failureSet(verified.failures));
  });

  it('resumes a job that failed part-way: finished items are reused, only the rest is checked again', async () => {
    const [, , stopped, resumed] = runs;
    // The runner wraps the failed item's error; its name or its cause's is the worker's.
    expect([stopped?.error?.name, stopped?.error?.cause]).toContain('Archiver.INTERNAL');
    expect(stopped?.output).toBeUndefined();
    const stored = await readdir(
      join(dirs.resumed, verifyJobKeys.itemResult('audit', 'x').replace(/x\.json$/, '')),
    );
    const items = resumed?.output?.result.items ?? 0;
    expect(items).toBeGreaterThan(2);
    // What the stopped execution finished left its result; the failed item (the plan's last) did not.
    const finishedBefore = (stopped?.checks ?? []).map((c) => c.id);
    const last = `p${String(items - 2).padStart(6, '0')}`;
    expect(finishedBefore.length).toBeGreaterThan(0);
    expect(finishedBefore).not.toContain(last);
    // Started again: exactly the items without a result are checked, the others' results are reused.
    const rechecked = (resumed?.checks ?? []).filter((c) => !c.reused).map((c) => c.id);
    const reused = (resumed?.checks ?? []).filter((c) => c.reused).map((c) => c.id);
    expect(rechecked).toContain(last);
    expect(rechecked.length).toBe(items - finishedBefore.length);
    expect(reused.sort()).toEqual([...finishedBefore].sort());
    expect(stored.length).toBe(items);
    expect(resumed?.output?.result).toMatchObject({ jobId: 'audit', ok: true, failures: 0 });
  });

  it('covers in the template what only AWS runs: ItemReader, ResultWriter, no tolerated failures', () => {
    const map = definition().States.CheckItems as Record<string, unknown>;
    // No tolerated failures: absent is AWS's default, 0 (any failed item fails the map, and the job).
    expect(map.ToleratedFailurePercentage ?? 0).toBe(0);
    expect(map.ToleratedFailureCount ?? 0).toBe(0);
    expect(map).toMatchObject(distributedJsonMap(VERIFY_JOB_MAP_RESULTS_PREFIX));
  });
});
