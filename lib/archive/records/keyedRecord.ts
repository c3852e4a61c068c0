import { type Day, dayOfMs } from '../../foundation/index.ts';
import type { ArchiveRow, DraftRow, TokenPolicy } from './archiveRow.ts';
import { canonicalJson, setOwn } from './canonicalJson.ts';
import { parseClientAddress } from './parseClientAddress.ts';
import { type RecordKey, recordKey, sessionIdOfKey } from './recordId.ts';
import { recordOverLimit } from './recordLimits.ts';
import { redactTokens } from './redactTokens.ts';
import { HISTORY_RECORD_FIELDS, type HistoryRecord } from './schemas.ts';
import { lostInstantText } from './wireInstant.ts';

export interface ToArchiveRowOptions {
  tokenPolicy: TokenPolicy;
  /** The archive's 32-byte secret: keys the token HMAC columns and both ids. */
  tokenKey: Uint8Array;
  /** When this run archived the row; injected so output is reproducible. */
  archivedAt: Date;
}

const NAMED: ReadonlySet<string> = new Set(HISTORY_RECORD_FIELDS);

/** The `dt=` partition of a session that started at `startMs`: the UTC calendar day it started. */
export function partitionOfMs(startMs: number): Day {
  return dayOfMs(startMs);
}

/**
 * A validated record whose dedupe key is worked out and whose archive row is built only when asked
 * for: `id` (its `record_id`) and `dt` (its partition) are what a walk's sink dedupes on, and most
 * records a rescan meets are archived already, so their rows (the `session_id` hash, the timestamps,
 * the client address) are never built. Everything that can fail is done here, in the constructor (it
 * throws, and the record is quarantined: see `keyRecord`): the instants, the token HMACs and the extra
 * fields' JSON. `row()` then only assembles, and gives the row `toArchiveRow` gives.
 */
export class KeyedRecord {
  /** The record's `record_id`. */
  readonly id: string;
  /** The `dt=` partition of its row: the UTC calendar day its session started. */
  readonly dt: Day;
  readonly #record: HistoryRecord;
  readonly #key: RecordKey;
  readonly #extraJson: string | null;
  readonly #opts: ToArchiveRowOptions;

  constructor(record: HistoryRecord, opts: ToArchiveRowOptions) {
    this.#record = record;
    this.#opts = opts;
    this.#key = recordKey(record, opts.tokenKey);
    this.#extraJson = extraJson(record, opts);
    this.id = this.#key.record_id;
    this.dt = partitionOfMs(this.#key.normalised.start_ms);
  }

  /**
   * The record's Parquet row. Raw tokens are kept only under `keep`; `hash` (and `keep`) keep a keyed
   * HMAC so sessions of one token can still be grouped; `drop` keeps neither. Fields the seed does not
   * name are in `extra_json`, with token-bearing names redacted by the same policy.
   */
  row(): ArchiveRow {
    return this.#build(sessionIdOfKey(this.#key), true) as ArchiveRow;
  }

  /**
   * The row as the walk hands it to the encoder (see {@link DraftRow}): its `session_id` is left null
   * when the row's own columns give it (the token HMACs are kept), so the encoder derives it (on its own
   * thread when it has one); under `drop` the row has no HMACs, and it is hashed here. Its timestamps are
   * epoch milliseconds and its `domains` the record's own list (the encoder only reads it).
   */
  draftRow(): DraftRow {
    return this.#build(this.#opts.tokenPolicy === 'drop' ? sessionIdOfKey(this.#key) : null, false);
  }

  /** The row's fields; `asRow` gives `Date`s and a copy of `domains`, as a public {@link ArchiveRow} has. */
  #build(sessionId: string | null, asRow: boolean): DraftRow {
    const record = this.#record;
    const opts = this.#opts;
    const n = this.#key.normalised;
    const { address, port: clientPort } = parseClientAddress(record.client_ip);
    const keepRaw = opts.tokenPolicy === 'keep';
    const keepHmac = opts.tokenPolicy !== 'drop';
    const archivedMs = opts.archivedAt.getTime();
    return {
      record_id: this.id,
      session_id: sessionId,
      start_time: asRow ? new Date(n.start_ms) : n.start_ms,
      end_time: n.end_ms === null ? null : asRow ? new Date(n.end_ms) : n.end_ms,
      user_email: record.user_email,
      token_value: keepRaw ? record.token_value : null,
      virtual_token_value: keepRaw ? record.virtual_token_value : null,
      token_hmac: keepHmac ? n.token_hmac : null,
      virtual_token_hmac: keepHmac ? n.virtual_token_hmac : null,
      domains: asRow ? [...record.domains] : record.domains,
      mode: record.mode,
      mode_udp: record.mode_udp,
      client_ip: record.client_ip,
      client_address: address,
      client_port: clientPort,
      port: record.port,
      extra_json: this.#extraJson,
      archived_at: asRow ? new Date(archivedMs) : archivedMs,
      start_time_text: lostInstantText(record.start_time, n.start_ms),
      end_time_text:
        record.end_time === null || n.end_ms === null ? null : lostInstantText(record.end_time, n.end_ms),
    };
  }
}

/** A record keyed for a walk, or why a record valid by the schema cannot become a row (it is quarantined). */
export type KeyedResult = { ok: true; keyed: KeyedRecord } | { ok: false; reason: string };

/**
 * The last check a record meets, after `validateHistoryRecord`: it must map to an archive row (its
 * instants, tokens and extra fields must survive the mapping). One that does not is quarantined with
 * this reason, like any other bad record, instead of failing its walk.
 */
export function keyRecord(record: HistoryRecord, opts: ToArchiveRowOptions): KeyedResult {
  try {
    return { ok: true, keyed: new KeyedRecord(record, opts) };
  } catch (error) {
    return { ok: false, reason: `cannot map to an archive row: ${(error as Error).message}` };
  }
}

function extraJson(record: HistoryRecord, opts: ToArchiveRowOptions): string | null {
  // Most records carry only the named fields: no object is built for them, and no key list either
  // (`for…in` walks V8's cached keys; the own-key check leaves out anything inherited, as Object.keys does).
  let extra: Record<string, unknown> | undefined;
  for (const key in record) {
    if (NAMED.has(key) || !Object.hasOwn(record, key)) continue;
    extra ??= {};
    setOwn(extra, key, (record as Record<string, unknown>)[key]);
  }
  if (extra === undefined) return null;
  // A page's items were measured already (`judgeHistoryContent`); a record keyed without it is measured here.
  const over = recordOverLimit(extra);
  if (over !== undefined) throw new Error(`extra fields ${over.reason}`);
  const redacted = redactTokens(extra, opts.tokenPolicy, opts.tokenKey, [
    record.token_value,
    record.virtual_token_value,
  ]) as Record<string, unknown>;
  return Object.keys(redacted).length === 0 ? null : canonicalJson(redacted);
}
