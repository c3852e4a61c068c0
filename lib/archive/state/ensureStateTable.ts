import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateContinuousBackupsCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { ArchiverError } from '../../foundation/index.ts';
import { createStateTableCommands, enablePitrCommand, STATE_TABLE } from './stateTableSpec.ts';

function errorName(error: unknown): string | undefined {
  return (error as { name?: string } | undefined)?.name;
}

/** What `ensureStateTable` found or did. */
export interface EnsuredStateTable {
  /** This call created the table. */
  created: boolean;
  /** DescribeTable was denied: whether the table exists is not known (the store's own calls will tell). */
  unchecked?: boolean;
  /**
   * Why point-in-time recovery is off on a table this call created (the table is usable; the message
   * names the command that turns it on).
   */
  pitrNotEnabled?: string;
}

export interface EnsureStateTableOptions {
  /** Waits between tries of turning point-in-time recovery on (a new table refuses it for a while). */
  sleep?: (ms: number) => Promise<void>;
  /** Tries of turning point-in-time recovery on, 2 s apart (default 30). */
  pitrAttempts?: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Creates the state table when it is missing, as the stack declares it (`STATE_TABLE`: key `pk`, on-demand,
 * deletion protection, point-in-time recovery), and waits until it is ACTIVE; a table that exists is left
 * as it is. Credentials that may not create it get `CONFIG_INVALID` with the AWS CLI commands that create
 * it by hand. `tunnel-archiver run`/`start`/`recover` call it; read-only commands never do.
 */
export async function ensureStateTable(
  client: DynamoDBClient,
  table: string,
  options: EnsureStateTableOptions = {},
): Promise<EnsuredStateTable> {
  let created = false;
  try {
    try {
      const out = await client.send(new DescribeTableCommand({ TableName: table }));
      if (out.Table?.TableStatus === 'ACTIVE') return { created: false };
    } catch (error) {
      if (errorName(error) === 'AccessDeniedException') return { created: false, unchecked: true };
      if (errorName(error) !== 'ResourceNotFoundException') throw error;
      created = await createTable(client, table);
    }
    await waitUntilTableExists({ client, maxWaitTime: 300, minDelay: 1, maxDelay: 5 }, { TableName: table });
  } catch (error) {
    if (error instanceof ArchiverError) throw error;
    throw new ArchiverError(
      'STORE_FAILED',
      `cannot create the state table '${table}': ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (!created) return { created };
  const pitr = await enablePitr(client, table, options);
  return { created, ...(pitr === undefined ? {} : { pitrNotEnabled: pitr }) };
}

/** CreateTable as `STATE_TABLE` says; false when another process created it first (it is waited for). */
async function createTable(client: DynamoDBClient, table: string): Promise<boolean> {
  const { partitionKey, partitionKeyType, billingMode, deletionProtection } = STATE_TABLE;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: billingMode,
        AttributeDefinitions: [{ AttributeName: partitionKey, AttributeType: partitionKeyType }],
        KeySchema: [{ AttributeName: partitionKey, KeyType: 'HASH' }],
        DeletionProtectionEnabled: deletionProtection,
      }),
    );
    return true;
  } catch (error) {
    if (errorName(error) === 'ResourceInUseException') return false;
    if (errorName(error) === 'AccessDeniedException') {
      throw new ArchiverError(
        'CONFIG_INVALID',
        `the state table '${table}' does not exist and these credentials may not create it (${(error as Error).message}). Create it once with the stack (its StateTableName output), or by hand:\n  ${createStateTableCommands(table).join('\n  ')}\nthen run again.`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** Turns point-in-time recovery on; the reason it stayed off, or undefined once it is on. */
async function enablePitr(
  client: DynamoDBClient,
  table: string,
  options: EnsureStateTableOptions,
): Promise<string | undefined> {
  if (!STATE_TABLE.pointInTimeRecovery) return undefined;
  const sleep = options.sleep ?? realSleep;
  const attempts = options.pitrAttempts ?? 30;
  for (let attempt = 1; ; attempt++) {
    try {
      await client.send(
        new UpdateContinuousBackupsCommand({
          TableName: table,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      );
      return undefined;
    } catch (error) {
      // A table minutes old answers this until its continuous backups are ready.
      if (errorName(error) === 'ContinuousBackupsUnavailableException' && attempt < attempts) {
        await sleep(2000);
        continue;
      }
      return `point-in-time recovery is off on the new state table '${table}' (${errorName(error)}: ${(error as Error).message}); turn it on with: ${enablePitrCommand(table)}`;
    }
  }
}
