import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, type DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamo, startLocalDynamo } from '../../devkit/localDynamo.ts';
import { runCli } from '../../devkit/runCli.ts';
import { localDynamoClient } from '../../devkit/startDynalite.ts';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { createStateTableCommands, STATE_TABLE } from '../../lib/archive/state/stateTableSpec.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { dynamoError, startDynamoFaultProxy } from '../support/dynamoFaultProxy.ts';
import { SMALL_DATASET } from '../support/engineKit.ts';

const NOW = '2026-10-01T06:00:00.000Z';
/** What a table the CLI may not write must not see. */
const WRITES = [
  'CreateTable',
  'UpdateTable',
  'UpdateContinuousBackups',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
];

let dir: string;
let emulator: EmulatorHandle;
let dynamo: LocalDynamo;
let client: DynamoDBClient;

/** The env of a CLI child whose DynamoDB is `endpoint` (dynalite, or a proxy in front of it). */
const envFor = (endpoint: string) => ({
  TUNNEL_API_KEY: EMULATOR_PAID_KEY,
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_REGION: 'us-east-1',
  LOG_LEVEL: 'info',
  TMPDIR: join(dir, 'tmp'),
  // A local archive's keys may default to a per-user folder: this test's own.
  XDG_CONFIG_HOME: join(dir, 'config'),
});
const runArgs = (dest: string, table: string) => [
  'run',
  '--now',
  NOW,
  '--base-url',
  emulator.url,
  '--dest',
  `file://${dest}`,
  '--state',
  `dynamodb://${table}`,
  '--json',
];
const tables = async () => (await client.send(new ListTablesCommand({}))).TableNames ?? [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-state-table-'));
  await mkdir(join(dir, 'tmp'));
  emulator = await startEmulator({
    seed: 3,
    clock: new ManualClock(new Date(NOW)),
    maxPageSize: 100,
    dataset: SMALL_DATASET,
  });
  dynamo = await startLocalDynamo();
  client = localDynamoClient(dynamo.endpoint);
});
afterAll(async () => {
  client.destroy();
  await dynamo.close();
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a dynamodb:// state table the CLI needs', () => {
  it('is created by the first run (as the stack declares it), which then archives; the next run reuses it', async () => {
    // The proxy answers point-in-time recovery, which dynalite does not implement, as AWS does.
    const proxy = await startDynamoFaultProxy({
      target: dynamo.endpoint,
      answer: (op) =>
        op === 'UpdateContinuousBackups'
          ? { status: 200, body: { ContinuousBackupsDescription: { ContinuousBackupsStatus: 'ENABLED' } } }
          : undefined,
    });
    try {
      const dest = join(dir, 'created');
      expect(await tables()).not.toContain('fresh-state');
      const first = await runCli(runArgs(dest, 'fresh-state'), envFor(proxy.url));
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout).recordsNew).toBeGreaterThan(100);
      expect(first.stderr).toContain('state table created');
      expect(proxy.requests('CreateTable')).toEqual([
        expect.objectContaining({
          TableName: 'fresh-state',
          KeySchema: [{ AttributeName: STATE_TABLE.partitionKey, KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      ]);
      expect(proxy.requests('UpdateContinuousBackups')).toHaveLength(1);
      const described = await client.send(new DescribeTableCommand({ TableName: 'fresh-state' }));
      expect(described.Table?.TableStatus).toBe('ACTIVE');

      const second = await runCli(runArgs(dest, 'fresh-state'), envFor(proxy.url));
      expect(second.code, second.stderr).toBe(0);
      expect(proxy.requests('CreateTable')).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('is refused, when the credentials may not create it, with the commands that create it (exit 2)', async () => {
    const proxy = await startDynamoFaultProxy({
      target: dynamo.endpoint,
      answer: (op) =>
        op === 'CreateTable'
          ? dynamoError(
              400,
              'AccessDeniedException',
              'User: arn:aws:iam::123456789012:user/ops is not authorized to perform: dynamodb:CreateTable',
            )
          : undefined,
    });
    try {
      const r = await runCli(runArgs(join(dir, 'denied'), 'denied-state'), envFor(proxy.url));
      expect(r.code, r.stderr).toBe(2);
      for (const command of createStateTableCommands('denied-state')) expect(r.stderr).toContain(command);
      expect(r.stdout).toBe('');
      expect(await tables()).not.toContain('denied-state');
      expect(proxy.operations().filter((op) => op !== 'DescribeTable' && op !== 'CreateTable')).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe('a dynamodb:// state table that does not exist, named beside an existing archive', () => {
  const dest = () => join(dir, 'readable');
  beforeAll(async () => {
    // An archive to read, with its state in the local folder: the table named below is never made.
    const args = runArgs(dest(), 'unused').filter((a, i, all) => a !== '--state' && all[i - 1] !== '--state');
    const r = await runCli(args, envFor(dynamo.endpoint));
    expect(r.code, r.stderr).toBe(0);
  });

  it.each([
    ['status', []],
    ['verify', []],
    ['report', ['--out', 'REPORT']],
    [
      'export',
      ['--ocsf', '--class', 'sessions', '--since', '2026-09-01', '--until', '2026-10-01', '--out', 'OUT'],
    ],
  ])(
    '%s creates nothing in DynamoDB',
    async (command, extra) => {
      const proxy = await startDynamoFaultProxy({ target: dynamo.endpoint });
      try {
        const args = [
          command,
          ...(command === 'export' ? [] : ['--now', NOW, '--state', 'dynamodb://absent-state']),
          ...(command === 'verify' ? ['--base-url', emulator.url] : []),
          '--dest',
          `file://${dest()}`,
          ...extra.map((a) =>
            a === 'REPORT' ? join(dir, `${command}.html`) : a === 'OUT' ? join(dir, 'ocsf') : a,
          ),
        ];
        const env = { ...envFor(proxy.url), ARCHIVE_STATE: 'dynamodb://absent-state' };
        const r = await runCli(args, env);
        expect(r.signal, r.stderr).toBeNull();
        // Each got past its arguments and read the archive (exit 0), or stopped on the state it cannot read.
        expect(r.stderr).not.toMatch(/CONFIG_INVALID|INTERNAL/);
        // It read the state (export takes none), or said the table is missing and who creates it.
        if (command !== 'export') expect(proxy.operations().length).toBeGreaterThan(0);
        expect(
          r.code === 0 || /the DynamoDB state table 'absent-state' does not exist/.test(r.stderr),
          r.stderr,
        ).toBe(true);
        expect(proxy.operations().filter((op) => WRITES.includes(op))).toEqual([]);
        expect(await tables()).not.toContain('absent-state');
      } finally {
        await proxy.close();
      }
    },
    120_000,
  );

  it('recover, which writes the state, creates the table and rebuilds the manifests into it', async () => {
    const args = ['recover', '--dest', `file://${dest()}`, '--state', 'dynamodb://recovered-state', '--json'];
    const r = await runCli(args, envFor(dynamo.endpoint));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).files).toBeGreaterThan(0);
    expect(await tables()).toContain('recovered-state');
  });
});
