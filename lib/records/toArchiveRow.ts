import { type Day, toDay } from '../clock/day.ts';
import { HISTORY_RECORD_FIELDS, type HistoryRecord } from '../upstream/schemas.ts';
import type { ArchiveRow, TokenPolicy } from './archiveRow.ts';
import { canonicalJson } from './canonicalJson.ts';
import { parseClientAddress } from './parseClientAddress.ts';
import { recordId } from './recordId.ts';
import { sha256Hex } from './sha256Hex.ts';
import { toEpochMs } from './toEpochMs.ts';

export interface ToArchiveRowOptions {
  tokenPolicy: TokenPolicy;
  /** When this run archived the row; injected so output is reproducible. */
  archivedAt: Date;
}

const NAMED: ReadonlySet<string> = new Set(HISTORY_RECORD_FIELDS);

/**
 * Maps a validated history record to its Parquet row. Raw tokens are kept only under `keep`; `hash`
 * keeps a SHA-256 so sessions of one token can still be grouped; `drop` keeps neither. Fields the seed
 * does not name are preserved verbatim in `extra_json` rather than lost.
 */
export function toArchiveRow(record: HistoryRecord, opts: ToArchiveRowOptions): ArchiveRow {
  const { address, port: clientPort } = parseClientAddress(record.client_ip);
  const keepRaw = opts.tokenPolicy === 'keep';
  const keepHash = opts.tokenPolicy !== 'drop';
  return {
    record_id: recordId(record),
    start_time: new Date(toEpochMs(record.start_time)),
    end_time: record.end_time === null ? null : new Date(toEpochMs(record.end_time)),
    user_email: record.user_email,
    token_value: keepRaw ? record.token_value : null,
    virtual_token_value: keepRaw ? record.virtual_token_value : null,
    token_sha256: keepHash ? hashOrNull(record.token_value) : null,
    virtual_token_sha256: keepHash ? hashOrNull(record.virtual_token_value) : null,
    domains: [...record.domains],
    mode: record.mode,
    mode_udp: record.mode_udp,
    client_ip: record.client_ip,
    client_address: address,
    client_port: clientPort,
    port: record.port,
    extra_json: extraJson(record),
    archived_at: new Date(opts.archivedAt.getTime()),
  };
}

/** The `dt=` partition of a row or record: the UTC calendar day its session started. */
export function partitionOf(
  rowOrRecord: Pick<ArchiveRow, 'start_time'> | Pick<HistoryRecord, 'start_time'>,
): Day {
  const start = rowOrRecord.start_time;
  return toDay(start instanceof Date ? start : new Date(toEpochMs(start)));
}

function hashOrNull(token: string | null): string | null {
  return token === null ? null : sha256Hex(token);
}

function extraJson(record: HistoryRecord): string | null {
  const extra: Record<string, unknown> = {};
  let any = false;
  for (const [key, value] of Object.entries(record)) {
    if (NAMED.has(key)) continue;
    extra[key] = value;
    any = true;
  }
  return any ? canonicalJson(extra) : null;
}
