import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoVersionedItems } from './dynamoVersionedItems.ts';
import { startLocalDynamo } from './localDynamo.ts';
import type { VersionedItem } from './versionedItems.ts';

/** The table the embedded DynamoDB-compatible server kept local state in, before the item files. */
export const LEGACY_LOCAL_TABLE = 'tunnel-archiver-state';

/**
 * Every item of a local state folder written by earlier versions: a LevelDB database of the embedded
 * DynamoDB-compatible server (dynalite), read through the DynamoDB primitive (old-format items decoded as
 * it decodes them). The caller holds the folder's lock. None when the folder never got its table.
 */
export async function readLegacyLocalItems(dir: string): Promise<VersionedItem[]> {
  const server = await startLocalDynamo({ dir, locked: true });
  const client = new DynamoDBClient({
    endpoint: server.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    return await dynamoVersionedItems({ client, table: LEGACY_LOCAL_TABLE }).query('');
  } catch (error) {
    if (noTable(error)) return [];
    throw error;
  } finally {
    client.destroy();
    await server.close();
  }
}

/** Whether the server answered that the table does not exist (the primitive keeps that as its cause). */
function noTable(error: unknown): boolean {
  for (let e = error as { name?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.name === 'ResourceNotFoundException') return true;
  }
  return false;
}
