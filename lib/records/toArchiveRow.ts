import { type Day, toDay } from '../clock/day.ts';
import type { ArchiveRow, TokenPolicy } from './archiveRow.ts';
import { canonicalJson, setOwn } from './canonicalJson.ts';
import { parseClientAddress } from './parseClientAddress.ts';
import { recordIdentity } from './recordId.ts';
import { redactTokens } from './redactTokens.ts';
import { HISTORY_RECORD_FIELDS, type HistoryRecord } from './schemas.ts';
import { toEpochMs } from './toEpochMs.ts';
import { lostInstantText } from './wireInstant.ts';

export interface ToArchiveRowOptions {
  tokenPolicy: TokenPolicy;
  /** The archive's 32-byte secret: keys the token HMAC columns and both ids. */
  tokenKey: Uint8Array;
  /** When this run archived the row; injected so output is reproducible. */
  archivedAt: Date;
}

const NAMED: ReadonlySet<string> = new Set(HISTORY_RECORD_FIELDS);

/**
 * Maps a validated history record to its Parquet row. Raw tokens are kept only under `keep`; `hash`
 * (and `keep`) keep a keyed HMAC so sessions of one token can still be grouped; `drop` keeps neither.
 * Fields the seed does not name are preserved in `extra_json`, with token-bearing names redacted by the
 * same policy. The ids are computed over the normalised record with tokens as HMACs, whatever the policy.
 */
export function toArchiveRow(record: HistoryRecord, opts: ToArchiveRowOptions): ArchiveRow {
  const { address, port: clientPort } = parseClientAddress(record.client_ip);
  const { record_id, session_id, normalised: n } = recordIdentity(record, opts.tokenKey);
  const keepRaw = opts.tokenPolicy === 'keep';
  const keepHmac = opts.tokenPolicy !== 'drop';
  return {
    record_id,
    session_id,
    start_time: new Date(n.start_ms),
    end_time: n.end_ms === null ? null : new Date(n.end_ms),
    user_email: record.user_email,
    token_value: keepRaw ? record.token_value : null,
    virtual_token_value: keepRaw ? record.virtual_token_value : null,
    token_hmac: keepHmac ? n.token_hmac : null,
    virtual_token_hmac: keepHmac ? n.virtual_token_hmac : null,
    domains: [...record.domains],
    mode: record.mode,
    mode_udp: record.mode_udp,
    client_ip: record.client_ip,
    client_address: address,
    client_port: clientPort,
    port: record.port,
    extra_json: extraJson(record, opts),
    archived_at: new Date(opts.archivedAt.getTime()),
    start_time_text: lostInstantText(record.start_time, n.start_ms),
    end_time_text:
      record.end_time === null || n.end_ms === null ? null : lostInstantText(record.end_time, n.end_ms),
  };
}

/** The `dt=` partition of a row or record: the UTC calendar day its session started. */
export function partitionOf(
  rowOrRecord: Pick<ArchiveRow, 'start_time'> | Pick<HistoryRecord, 'start_time'>,
): Day {
  const start = rowOrRecord.start_time;
  return toDay(start instanceof Date ? start : new Date(toEpochMs(start)));
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
  const redacted = redactTokens(extra, opts.tokenPolicy, opts.tokenKey, [
    record.token_value,
    record.virtual_token_value,
  ]) as Record<string, unknown>;
  return Object.keys(redacted).length === 0 ? null : canonicalJson(redacted);
}
