import { ArchiverError } from '../../foundation/index.ts';

/** Runs a write of the Parquet file at `localPath`; any failure that is not an `ArchiverError` becomes `STORE_FAILED`. */
export async function wrapParquetWrite<T>(localPath: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (ArchiverError.is(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ArchiverError('STORE_FAILED', `writing Parquet file ${localPath} failed: ${message}`, {
      cause: error,
    });
  }
}
