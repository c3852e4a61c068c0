import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';

/**
 * The events of one Parquet object of the lake, read back as a reader would: the object saved at `path`,
 * then each row as JSON through DuckDB (no columns taken from the path's `key=value` folders).
 */
export async function readLakeObject(
  client: S3Client,
  bucket: string,
  key: string,
  path: string,
): Promise<Record<string, unknown>[]> {
  const body = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  await mkdir(dirname(path), { recursive: true });
  await writeFile(
    path,
    await (body.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const rows = await c.runAndReadAll(
      `SELECT CAST(to_json(e) AS VARCHAR) AS j FROM read_parquet('${path}', hive_partitioning = false) e`,
    );
    return rows.getRowObjectsJson().map((r) => JSON.parse(String(r.j)) as Record<string, unknown>);
  } finally {
    c.closeSync();
    db.closeSync();
  }
}
