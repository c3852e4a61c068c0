import * as nodeCrypto from 'node:crypto';
import { createHash, createHmac } from 'node:crypto';
import { canonicalJson } from './canonicalJson.ts';
import type { HistoryRecord } from './schemas.ts';
import { toEpochMs } from './toEpochMs.ts';
import { tokenHmac, tokenKeyObject } from './tokenHmac.ts';

/** Every id of the archive is 128 bits, written as 32 lower-case hex characters. */
export const ID_HEX_LENGTH = 32;

/**
 * A history record as the archive sees it, before any token policy: instants as epoch ms, `domains`
 * as a sorted (UTF-16 code unit order) de-duplicated set, tokens replaced by their keyed HMAC.
 * Both ids are computed from these fields, so neither is an unkeyed function of a raw token.
 */
export interface NormalisedRecord {
  start_ms: number;
  end_ms: number | null;
  user_email: string;
  /** `tokenHmac(tokenKey, token_value)`, or null when the token is null. */
  token_hmac: string | null;
  /** `tokenHmac(tokenKey, virtual_token_value)`, or null. */
  virtual_token_hmac: string | null;
  domains: readonly string[];
  mode: string;
  mode_udp: string;
  client_ip: string;
  port: number | null;
}

/** Both ids of a record plus the normalised fields they were computed from (so callers hash once). */
export interface RecordIdentity {
  record_id: string;
  session_id: string;
  normalised: NormalisedRecord;
}

/** Normalises the seed-named fields of a validated record (see {@link NormalisedRecord}). */
export function normaliseRecord(record: HistoryRecord, tokenKey: Uint8Array): NormalisedRecord {
  return {
    start_ms: toEpochMs(record.start_time),
    end_ms: record.end_time === null ? null : toEpochMs(record.end_time),
    user_email: record.user_email,
    token_hmac: record.token_value === null ? null : tokenHmac(tokenKey, record.token_value),
    virtual_token_hmac:
      record.virtual_token_value === null ? null : tokenHmac(tokenKey, record.virtual_token_value),
    domains: sortedSet(record.domains),
    mode: record.mode,
    mode_udp: record.mode_udp,
    client_ip: record.client_ip,
    port: record.port,
  };
}

/**
 * `domains` as a sorted (UTF-16 code unit order, as `sort` compares) set. A list already in strictly
 * rising order (none, one, or sorted without repeats: most records) is that set, and is read as it is
 * (never written to); any other is copied, de-duplicated and sorted.
 */
function sortedSet(domains: readonly string[]): readonly string[] {
  for (let i = 1; i < domains.length; i++)
    if (!((domains[i - 1] as string) < (domains[i] as string))) return [...new Set(domains)].sort();
  return domains;
}

/**
 * `record_id`, the dedupe key: the first 128 bits (32 hex) of
 * SHA-256(`"tunnel-archiver/record/v2\n"` + canonical JSON of the object below, keys sorted):
 *
 * | key | value |
 * |---|---|
 * | `client_ip` | as received |
 * | `domains` | sorted, de-duplicated |
 * | `end_time` | epoch ms, or null |
 * | `mode`, `mode_udp` | as received |
 * | `port` | integer or null |
 * | `start_time` | epoch ms (so `Z`, `+00:00` and `+02:00` spellings of one instant agree) |
 * | `token_hmac`, `virtual_token_hmac` | HMAC-SHA256 hex of the token under the token key, or null |
 * | `user_email` | as received |
 *
 * Fields the seed does not name are left out, so a new upstream field never changes every id. The id
 * does not depend on the token policy: switching policy never re-archives anything.
 */
export function recordIdOf(n: NormalisedRecord): string {
  return id128(recordIdText(n, sharedTexts(n)));
}

/**
 * `session_id`, the identity of one tunnel session across revisions: the first 128 bits of
 * SHA-256(`"tunnel-archiver/session/v1\n"` + canonical JSON of `client_ip`, `mode`, `start_time`
 * (epoch ms), `token_hmac`, `user_email`, `virtual_token_hmac`). These are fixed when the tunnel
 * opens; `end_time`, `domains`, `port` and `mode_udp` are left out because they may change while the
 * session lives, so a session seen again with a later `end_time` is a new row (new `record_id`)
 * with the same `session_id`: a revision, not an unexplained duplicate.
 */
export function sessionIdOf(n: SessionIdFields): string {
  return id128(sessionIdText(sharedTexts(n)));
}

/*
 * The texts hashed into the ids, written field by field in their fixed (sorted) key order instead of
 * by `JSON.stringify` of an object: byte for byte the same canonical JSON (test/records/idLayout.test.ts
 * checks it against the object form over arbitrary records), without building the object, and with
 * the fields both ids share escaped once.
 */
function recordIdText(n: NormalisedRecord, s: SharedTexts): string {
  let domains = '[';
  for (let i = 0; i < n.domains.length; i++)
    domains += (i === 0 ? '' : ',') + jsonText(n.domains[i] as string);
  return (
    `tunnel-archiver/record/v2\n{"client_ip":${s.clientIp},"domains":${domains}],"end_time":${jsonNumber(n.end_ms)},` +
    `"mode":${s.mode},"mode_udp":${jsonText(n.mode_udp)},"port":${jsonNumber(n.port)},` +
    `"start_time":${s.startTime},"token_hmac":${s.tokenHmac},"user_email":${s.userEmail},` +
    `"virtual_token_hmac":${s.virtualTokenHmac}}`
  );
}

function sessionIdText(s: SharedTexts): string {
  return (
    `tunnel-archiver/session/v1\n{"client_ip":${s.clientIp},"mode":${s.mode},` +
    `"start_time":${s.startTime},"token_hmac":${s.tokenHmac},"user_email":${s.userEmail},` +
    `"virtual_token_hmac":${s.virtualTokenHmac}}`
  );
}

/** The fields `session_id` is made of (see {@link sessionIdOf}): a {@link NormalisedRecord} has them, and so does a row. */
export type SessionIdFields = Pick<
  NormalisedRecord,
  'start_ms' | 'client_ip' | 'mode' | 'user_email' | 'token_hmac' | 'virtual_token_hmac'
>;

/** The JSON texts of the fields both ids hash, written once for both. */
export interface SharedTexts {
  clientIp: string;
  mode: string;
  startTime: string;
  tokenHmac: string;
  userEmail: string;
  virtualTokenHmac: string;
}

function sharedTexts(n: SessionIdFields): SharedTexts {
  return {
    clientIp: jsonText(n.client_ip),
    mode: jsonText(n.mode),
    startTime: jsonNumber(n.start_ms),
    tokenHmac: jsonNullable(n.token_hmac),
    userEmail: jsonText(n.user_email),
    virtualTokenHmac: jsonNullable(n.virtual_token_hmac),
  };
}

/** Characters `JSON.stringify` writes escaped (or may: any surrogate), so a string with one goes to it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the control characters JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(s)` of a string: quoted as is when nothing in it needs escaping. */
function jsonText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function jsonNullable(s: string | null): string {
  return s === null ? 'null' : jsonText(s);
}

/** `JSON.stringify(n)` of a number or null (a non-finite number is `null` there too). */
export function jsonNumber(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return 'null';
  // Epoch milliseconds: V8 formats a double of 13 digits twice as slowly as two small integers (measured
  // 150–190 ns against 70–80), so such an integer is written as its two halves.
  if (n >= 1e9 && n < 1e15 && Math.floor(n) === n) {
    const high = Math.floor(n / 1e9);
    const low = n - high * 1e9;
    if (low >= 0 && low < 1e9) {
      const lowText = String(low);
      return String(high) + NINE_ZEROS.slice(lowText.length) + lowText;
    }
  }
  return String(n);
}

const NINE_ZEROS = '000000000';

/**
 * The `record_id` of a validated record, with what its `session_id` needs (see {@link sessionIdOfKey}),
 * so that a record already archived costs one hash, not two.
 */
export interface RecordKey {
  record_id: string;
  normalised: NormalisedRecord;
  /** The field texts both ids hash, written once. */
  readonly shared: SharedTexts;
}

/** The `record_id` of a validated record, hashing each token once; `session_id` is left for later. */
export function recordKey(record: HistoryRecord, tokenKey: Uint8Array): RecordKey {
  const normalised = normaliseRecord(record, tokenKey);
  const shared = sharedTexts(normalised);
  return { record_id: id128(recordIdText(normalised, shared)), normalised, shared };
}

/** The `session_id` of the record `key` was made from (the same as {@link sessionIdOf} of its fields). */
export function sessionIdOfKey(key: RecordKey): string {
  return id128(sessionIdText(key.shared));
}

/** Both ids of a validated record, hashing each token once. */
export function recordIdentity(record: HistoryRecord, tokenKey: Uint8Array): RecordIdentity {
  const key = recordKey(record, tokenKey);
  return { record_id: key.record_id, session_id: sessionIdOfKey(key), normalised: key.normalised };
}

/** The `record_id` of a validated record (see {@link recordIdOf}). */
export function recordId(record: HistoryRecord, tokenKey: Uint8Array): string {
  return recordIdOf(normaliseRecord(record, tokenKey));
}

/** The `session_id` of a validated record (see {@link sessionIdOf}). */
export function sessionId(record: HistoryRecord, tokenKey: Uint8Array): string {
  return sessionIdOf(normaliseRecord(record, tokenKey));
}

/**
 * The id of an item that failed validation (its quarantine file name): the first 128 bits of
 * HMAC-SHA256 under the token key of `"tunnel-archiver/raw/v1\n"` + the canonical JSON of the raw
 * item. Keyed, because the raw item may hold a token: an unkeyed hash in a file name would let anyone
 * test a guessed token. The same bad item seen twice gets the same id, so it is stored once.
 */
export function rawRecordId(raw: unknown, tokenKey: Uint8Array): string {
  return createHmac('sha256', tokenKeyObject(tokenKey))
    .update(`tunnel-archiver/raw/v1\n${canonicalJson(raw)}`, 'utf8')
    .digest('hex')
    .slice(0, ID_HEX_LENGTH);
}

/** `crypto.hash` (one-shot, about twice as fast) from Node 20.12; `createHash` before that. */
const oneShot: ((algorithm: string, data: string, encoding: 'hex') => string) | undefined =
  typeof nodeCrypto.hash === 'function' ? nodeCrypto.hash : undefined;

function id128(text: string): string {
  const hex = oneShot
    ? oneShot('sha256', text, 'hex')
    : createHash('sha256').update(text, 'utf8').digest('hex');
  return hex.slice(0, ID_HEX_LENGTH);
}
