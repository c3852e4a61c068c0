import { ArchiverError } from '../errors/archiverError.ts';

/** An ISO date-time that carries no zone designator (`Z` or `±hh:mm`). */
const NO_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * Epoch milliseconds of an upstream ISO 8601 date-time. A date-time without an offset is read as UTC,
 * never as the host's local zone, so ids and partitions do not depend on where the archiver runs.
 * Digits past milliseconds are truncated.
 */
export function toEpochMs(iso: string): number {
  const text = NO_ZONE.test(iso) ? `${iso}Z` : iso;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    throw new ArchiverError('SCHEMA_MISMATCH', `expected an ISO 8601 date-time, got '${iso}'`);
  }
  return ms;
}
