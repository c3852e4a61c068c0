import { ArchiverError } from '../../foundation/index.ts';

/**
 * Rejects keys that could escape a store's root or mean different things on files and S3
 * (absolute, `../..`, empty segments, backslashes). Both adapters call it so they accept the same keys.
 */
export function assertObjectKey(key: string): void {
  const segments = key.split('/');
  const bad =
    key.length === 0 ||
    key.includes('\\') ||
    key.includes('\0') ||
    segments.some((s) => s === '' || s === '.' || s === '..');
  if (bad) {
    throw new ArchiverError(
      'INTERNAL',
      `invalid object key '${key}': use '/'-separated, non-empty, relative segments`,
    );
  }
}

/** Wraps an unexpected adapter failure so callers can branch on `STORE_FAILED`; keeps `ArchiverError`s as they are. */
export function storeFailed(what: string, cause: unknown): ArchiverError {
  if (cause instanceof ArchiverError) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ArchiverError('STORE_FAILED', `${what}: ${detail}`, { cause });
}
