import { DescribeTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamo, startLocalDynamo } from '../../devkit/localDynamo.ts';
import { localDynamoClient } from '../../devkit/startDynalite.ts';
import { ensureStateTable } from '../../lib/archive/state/ensureStateTable.ts';
import {
  createStateTableCommands,
  enablePitrCommand,
  STATE_TABLE,
} from '../../lib/archive/state/stateTableSpec.ts';
import {
  type DynamoFaultProxy,
  dynamoError,
  type ProxyAnswer,
  startDynamoFaultProxy,
} from '../support/dynamoFaultProxy.ts';

const PITR_ON: ProxyAnswer = {
  status: 200,
  body: { ContinuousBackupsDescription: { ContinuousBackupsStatus: 'ENABLED' } },
};

let dynamo: LocalDynamo;
let proxy: DynamoFaultProxy | undefined;
let tableNo = 0;
const nextTable = () => `state-${++tableNo}`;

/** A client through a proxy that answers `faults` (by operation) itself; point-in-time recovery is answered as on. */
async function through(faults: Record<string, ProxyAnswer | ProxyAnswer[]> = {}) {
  proxy = await startDynamoFaultProxy({
    target: dynamo.endpoint,
    answer: (operation) => {
      const fault = faults[operation];
      if (Array.isArray(fault))
        return fault.shift() ?? (operation === 'UpdateContinuousBackups' ? PITR_ON : undefined);
      return fault ?? (operation === 'UpdateContinuousBackups' ? PITR_ON : undefined);
    },
  });
  return { client: localDynamoClient(proxy.url), proxy };
}

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});
afterAll(async () => {
  await dynamo.close();
});

describe('ensureStateTable', () => {
  it('creates a missing table as the stack declares it (key pk, on demand, protected) and turns PITR on', async () => {
    const { client, proxy } = await through();
    const table = nextTable();
    await expect(ensureStateTable(client, table)).resolves.toEqual({ created: true });
    expect(proxy.requests('CreateTable')).toEqual([
      {
        TableName: table,
        BillingMode: STATE_TABLE.billingMode,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        DeletionProtectionEnabled: true,
      },
    ]);
    expect(proxy.requests('UpdateContinuousBackups')).toEqual([
      { TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
    ]);
    const described = await client.send(new DescribeTableCommand({ TableName: table }));
    expect(described.Table?.TableStatus).toBe('ACTIVE');
    client.destroy();
  });

  it('leaves a table that exists as it is: no create, no PITR change', async () => {
    const { client, proxy } = await through();
    const table = nextTable();
    await ensureStateTable(client, table);
    const before = proxy.operations().length;
    await expect(ensureStateTable(client, table)).resolves.toEqual({ created: false });
    expect(proxy.operations().slice(before)).toEqual(['DescribeTable']);
    client.destroy();
  });

  it('refuses with CONFIG_INVALID naming the AWS CLI commands when CreateTable is denied', async () => {
    const { client } = await through({
      CreateTable: dynamoError(
        400,
        'AccessDeniedException',
        'not authorized to perform: dynamodb:CreateTable',
      ),
    });
    const table = nextTable();
    const error = await ensureStateTable(client, table).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    const message = (error as Error).message;
    for (const command of createStateTableCommands(table)) expect(message).toContain(command);
    expect(message).toContain('dynamodb:CreateTable');
    const tables = await client.send(new ListTablesCommand({}));
    expect(tables.TableNames).not.toContain(table);
    client.destroy();
  });

  it('goes on without checking when DescribeTable is denied (the store says if the table is missing)', async () => {
    const { client, proxy } = await through({
      DescribeTable: dynamoError(400, 'AccessDeniedException', 'not authorized'),
    });
    await expect(ensureStateTable(client, nextTable())).resolves.toEqual({ created: false, unchecked: true });
    expect(proxy.operations()).toEqual(['DescribeTable']);
    client.destroy();
  });

  it('waits while a new table refuses PITR, then turns it on', async () => {
    const unavailable = dynamoError(
      400,
      'ContinuousBackupsUnavailableException',
      'Backups are being enabled',
    );
    const { client, proxy } = await through({ UpdateContinuousBackups: [unavailable, unavailable] });
    const sleeps: number[] = [];
    const result = await ensureStateTable(client, nextTable(), {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    expect(result).toEqual({ created: true });
    expect(sleeps).toEqual([2000, 2000]);
    expect(proxy.requests('UpdateContinuousBackups')).toHaveLength(3);
    client.destroy();
  });

  it('keeps a created table usable when PITR is denied, and says the command that turns it on', async () => {
    const { client } = await through({
      UpdateContinuousBackups: dynamoError(400, 'AccessDeniedException', 'not authorized'),
    });
    const table = nextTable();
    const result = await ensureStateTable(client, table);
    expect(result.created).toBe(true);
    expect(result.pitrNotEnabled).toContain(enablePitrCommand(table));
    client.destroy();
  });
});
