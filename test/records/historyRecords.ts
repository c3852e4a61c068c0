import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { NormalisedRecord } from '../../lib/archive/records/recordId.ts';
import {
  type HistoryRecord,
  historyRecordSchema,
  pageEnvelopeSchema,
} from '../../lib/archive/records/schemas.ts';
import { DOCUMENTED_HISTORY_RECORD } from '../fixtures/documentedValues.ts';

/** A fixed 32-byte token key for tests (never a real one). */
/** Characters a JSON text must escape or may write several ways: quotes, backslashes, controls, DEL, line separators, lone surrogates, non-ASCII. */
export const AWKWARD_JSON_CHARACTERS = [
  '"',
  '\\',
  '\n',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u2028',
  '\ud800',
  '\udc00',
  'a',
  'é',
] as const;

export const TEST_TOKEN_KEY: Uint8Array = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
/** Another key, to show that ids and HMACs depend on the key. */
export const OTHER_TOKEN_KEY: Uint8Array = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);

/** The one record of the documented history response (copy of /work/shared/fixtures/history-documented.json). */
export function documentedRecord(): HistoryRecord {
  const text = readFileSync(new URL('../fixtures/history-documented.json', import.meta.url), 'utf8');
  const page = pageEnvelopeSchema.parse(JSON.parse(text));
  return historyRecordSchema.parse(page.content[0]);
}

/** A plain, valid record to vary in table-driven tests: the documented one, another user. */
export function baseRecord(overrides: Partial<HistoryRecord> & Record<string, unknown> = {}): HistoryRecord {
  return { ...DOCUMENTED_HISTORY_RECORD, user_email: 'someone@example.com', ...overrides };
}

/** The same instant written with an arbitrary UTC offset, e.g. "2025-02-06T21:46:44.571+05:30". */
export function isoWithOffset(ms: number, offsetMinutes: number): string {
  if (offsetMinutes === 0) return new Date(ms).toISOString();
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}

const MIN_MS = Date.UTC(2000, 0, 1);
const MAX_MS = Date.UTC(2100, 0, 1);

/** An instant (epoch ms) and an offset to spell it with. */
export const instantArb = fc.record({
  ms: fc.integer({ min: MIN_MS, max: MAX_MS }),
  offset: fc.integer({ min: -12 * 60, max: 14 * 60 }),
});

/** Any valid history record, times as epoch ms plus spelling offsets so tests can re-spell them. */
export const recordPartsArb = fc.record({
  start: instantArb,
  end: fc.option(instantArb, { nil: null }),
  user_email: fc.string(),
  token_value: fc.option(fc.string(), { nil: null }),
  virtual_token_value: fc.option(fc.string(), { nil: null }),
  domains: fc.array(fc.string(), { maxLength: 4 }),
  mode: fc.constantFrom('http', 'tcp', 'tls', 'udp', ''),
  mode_udp: fc.constantFrom('', 'udp'),
  client_ip: fc.string(),
  port: fc.option(fc.integer({ min: 0, max: 65_535 }), { nil: null }),
});
export type RecordParts = typeof recordPartsArb extends fc.Arbitrary<infer T> ? T : never;

/** Builds the record, spelling its times with the given offsets (or the parts' own). */
export function recordFrom(
  parts: RecordParts,
  startOffset = parts.start.offset,
  endOffset = parts.end?.offset ?? 0,
) {
  const { start, end, ...rest } = parts;
  return {
    ...rest,
    start_time: isoWithOffset(start.ms, startOffset),
    end_time: end === null ? null : isoWithOffset(end.ms, endOffset),
  } satisfies HistoryRecord;
}

/**
 * The record_id's fields of a normalised record, by the names the id recipe gives them, keys in sorted
 * order (as the archive's first ids were made: the JSON of this object).
 */
export function recordIdFields(n: NormalisedRecord): Record<string, unknown> {
  return {
    client_ip: n.client_ip,
    domains: n.domains,
    end_time: n.end_ms,
    mode: n.mode,
    mode_udp: n.mode_udp,
    port: n.port,
    start_time: n.start_ms,
    token_hmac: n.token_hmac,
    user_email: n.user_email,
    virtual_token_hmac: n.virtual_token_hmac,
  };
}
