import { HISTORY_RECORD_FIELDS, type HistoryRecord } from '../upstream/schemas.ts';
import { canonicalJson } from './canonicalJson.ts';
import { sha256Hex } from './sha256Hex.ts';
import { toEpochMs } from './toEpochMs.ts';

const TIME_FIELDS: ReadonlySet<string> = new Set(['start_time', 'end_time']);

/**
 * The dedupe key of a history record: SHA-256 (hex) of the canonical JSON of the seed-named fields only.
 * Unknown extra fields are left out so that a new upstream field never changes every id (and re-archives
 * everything); times are compared as epoch ms so `+00:00` and `Z` spellings of one instant agree.
 */
export function recordId(record: HistoryRecord): string {
  const named: Record<string, unknown> = {};
  for (const field of HISTORY_RECORD_FIELDS) {
    const value: unknown = record[field];
    named[field] = TIME_FIELDS.has(field) && typeof value === 'string' ? toEpochMs(value) : value;
  }
  return sha256Hex(canonicalJson(named));
}

/**
 * SHA-256 (hex) of any JSON value with keys sorted: an id for quarantined items that failed validation,
 * so the same bad item seen twice is stored once.
 */
export function rawRecordId(raw: unknown): string {
  return sha256Hex(canonicalJson(raw));
}
