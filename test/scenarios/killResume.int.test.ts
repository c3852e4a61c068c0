import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../devkit/runCli.ts';
import { EMULATOR_PAID_KEY } from '../../devkit/startEmulator.ts';
import { LOCAL_KEY_FILES } from '../../lib/archive/keys/loadLocalKeys.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import {
  archivedIds,
  diffArchive,
  startWorld,
  truthIds,
  type World,
  windowDays,
} from '../support/engineKit.ts';

const NOW = '2026-10-01T06:00:00.000Z';
let world: World;
let env: Record<string, string>;
let step = 0;
// Each child acts a minute later than the last (same day), so a killed child's lease has expired by then
// (these runs use S3 and DynamoDB state: no same-host liveness shortcut).
const args = () => [
  'run',
  '--now',
  new Date(Date.parse(NOW) + ++step * 60_000).toISOString(),
  '--base-url',
  world.emulator.url,
  '--dest',
  `s3://${world.s3?.bucket}/archive`,
  '--state',
  `dynamodb://${world.dynamo.table}`,
  '--max-passes',
  '30',
  '--keys-dir',
  join(world.dir, 'keys'),
];

beforeAll(async () => {
  world = await startWorld({ start: NOW, store: 's3' });
  env = {
    TUNNEL_API_KEY: EMULATOR_PAID_KEY,
    AWS_ENDPOINT_URL_S3: world.s3?.endpoint ?? '',
    AWS_ENDPOINT_URL_DYNAMODB: world.dynamo.endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    LOG_LEVEL: 'error',
    LEASE_TTL_MS: '30000',
  };
});
afterAll(async () => {
  await world.close();
});

describe('a run killed with SIGKILL at every phase', () => {
  it('resumes on the next run with every record archived exactly once', async () => {
    // Deterministic crash points (the dev kit's crash-point CLI): the run kills itself right after the Nth step of a phase, so
    // every phase is hit by construction (a timer would land wherever a busy machine lets it).
    for (const phase of ['walk', 'upload', 'commit', 'publish', 'digest'])
      for (const n of phase === 'digest' ? [1] : [1, 4]) {
        const r = await runCli(args(), env, { crashAt: `${phase}:${n}` });
        expect(r.signal, `${phase}:${n} was reached and crashed there: ${r.stderr}`).toBe('SIGKILL');
      }
    const last = await runCli([...args(), '--json'], env);
    expect(last.code, last.stderr).toBe(0);
    const days = windowDays(toDay(new Date(NOW)));
    const archive = await archivedIds(world.objects);
    expect(archive.total).toBe(archive.distinct);
    const cliKey = new Uint8Array(await readFile(join(world.dir, 'keys', LOCAL_KEY_FILES.tokenKey)));
    expect(diffArchive(archive.byDt, truthIds(world, days, undefined, cliKey))).toEqual([]);
    const staged: string[] = [];
    for await (const o of world.objects.list('_staging/')) staged.push(o.key);
    // Staged files may remain only as unlisted leftovers of a killed upload; none may be listed and unpublished.
    const partitions = await world.state.listPartitions();
    for (const p of partitions)
      expect(
        p.files.every((f) => f.published),
        p.dt,
      ).toBe(true);
    const listed = new Set(partitions.flatMap((p) => p.files.map((f) => f.stagingKey)));
    expect(staged.filter((key) => listed.has(key))).toEqual([]);
  }, 600_000);
});
