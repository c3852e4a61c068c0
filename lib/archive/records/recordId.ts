import * as nodeCrypto from 'node:crypto';
import { createHash, createHmac } from 'node:crypto';
import { canonicalJson } from './canonicalJson.ts';
import { asciiPiece, IdTextWriter } from './idTextWriter.ts';
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
  return id128(recordIdText(n));
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
  return id128(sessionIdText(n));
}

/*
 * The texts hashed into the ids, written field by field in their fixed (sorted) key order instead of
 * by `JSON.stringify` of an object: byte for byte the same canonical JSON (test/records/idLayout.test.ts
 * checks it against the object form over arbitrary records), written as UTF-8 into one reused buffer
 * (`IdTextWriter`), with no string made for a field or for the text.
 */
const text = new IdTextWriter();
const RECORD_V2 = asciiPiece('tunnel-archiver/record/v2\n{"client_ip":');
const SESSION_V1 = asciiPiece('tunnel-archiver/session/v1\n{"client_ip":');
const DOMAINS = asciiPiece(',"domains":[');
const COMMA = asciiPiece(',');
const END_TIME = asciiPiece('],"end_time":');
const MODE = asciiPiece(',"mode":');
const MODE_UDP = asciiPiece(',"mode_udp":');
const PORT = asciiPiece(',"port":');
const START_TIME = asciiPiece(',"start_time":');
const TOKEN_HMAC = asciiPiece(',"token_hmac":');
const USER_EMAIL = asciiPiece(',"user_email":');
const VIRTUAL_TOKEN_HMAC = asciiPiece(',"virtual_token_hmac":');
const CLOSE = asciiPiece('}');

function recordIdText(n: NormalisedRecord): IdTextWriter {
  text.begin(RECORD_V2).text(n.client_ip).raw(DOMAINS);
  for (let i = 0; i < n.domains.length; i++) {
    if (i > 0) text.raw(COMMA);
    text.text(n.domains[i] as string);
  }
  text
    .raw(END_TIME)
    .number(n.end_ms)
    .raw(MODE)
    .text(n.mode)
    .raw(MODE_UDP)
    .text(n.mode_udp)
    .raw(PORT)
    .number(n.port);
  return closingFields(n);
}

function sessionIdText(n: SessionIdFields): IdTextWriter {
  text.begin(SESSION_V1).text(n.client_ip).raw(MODE).text(n.mode);
  return closingFields(n);
}

/** The four keys both texts end with, in their sorted order, and the closing brace. */
function closingFields(n: SessionIdFields): IdTextWriter {
  return text
    .raw(START_TIME)
    .number(n.start_ms)
    .raw(TOKEN_HMAC)
    .nullableText(n.token_hmac)
    .raw(USER_EMAIL)
    .text(n.user_email)
    .raw(VIRTUAL_TOKEN_HMAC)
    .nullableText(n.virtual_token_hmac)
    .raw(CLOSE);
}

/** The fields `session_id` is made of (see {@link sessionIdOf}): a {@link NormalisedRecord} has them, and so does a row. */
export type SessionIdFields = Pick<
  NormalisedRecord,
  'start_ms' | 'client_ip' | 'mode' | 'user_email' | 'token_hmac' | 'virtual_token_hmac'
>;

/**
 * The `record_id` of a validated record, with what its `session_id` needs (see {@link sessionIdOfKey}),
 * so that a record already archived costs one hash, not two.
 */
export interface RecordKey {
  record_id: string;
  normalised: NormalisedRecord;
}

/** The `record_id` of a validated record, hashing each token once; `session_id` is left for later. */
export function recordKey(record: HistoryRecord, tokenKey: Uint8Array): RecordKey {
  const normalised = normaliseRecord(record, tokenKey);
  return { record_id: recordIdOf(normalised), normalised };
}

/** The `session_id` of the record `key` was made from (the same as {@link sessionIdOf} of its fields). */
export function sessionIdOfKey(key: RecordKey): string {
  return sessionIdOf(key.normalised);
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
const oneShot: ((algorithm: string, data: Uint8Array, encoding: 'hex') => string) | undefined =
  typeof nodeCrypto.hash === 'function' ? nodeCrypto.hash : undefined;

/** The first 128 bits (32 hex) of the SHA-256 of the text `written` holds. */
function id128(written: IdTextWriter): string {
  const bytes = written.bytes();
  const hex = oneShot ? oneShot('sha256', bytes, 'hex') : createHash('sha256').update(bytes).digest('hex');
  return hex.slice(0, ID_HEX_LENGTH);
}
