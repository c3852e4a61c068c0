import { loneSurrogateAt } from './loneSurrogateAt.ts';
import { noNegativeZero } from './noNegativeZero.ts';
import { HISTORY_RECORD_FIELDS, type HistoryRecord } from './schemas.ts';
import { isInstant } from './toEpochMs.ts';

const FIELD_COUNT = HISTORY_RECORD_FIELDS.length;
const hasOwn = Object.hasOwn;

/**
 * The common case of the wire schema without zod: a plain object with exactly the named fields (no
 * extras), each of its type. Returns what `historyRecordSchema.parse` returns for it (keys in the schema's
 * order, the same values), or undefined for anything else, which then goes through zod and gets its
 * reasons (test/records/plainHistoryRecord.test.ts checks both against zod). An item whose keys already
 * come in the schema's order, as the server writes them, and whose port is not -0 is returned itself
 * (a page's parsed items belong to the walk alone, and nothing writes to a record): no object a record.
 */
export function plainHistoryRecord(raw: unknown): HistoryRecord | undefined {
  if (typeof raw !== 'object' || raw === null || Object.getPrototypeOf(raw) !== Object.prototype)
    return undefined;
  const r = raw as Record<string, unknown>;
  // Own keys counted and their order checked with `for…in`, which walks V8's cached key list: no array a
  // record, as `Object.keys` would make (the prototype is `Object.prototype`; an inherited key is skipped).
  let count = 0;
  let inSchemaOrder = true;
  for (const key in r) {
    if (!hasOwn(r, key)) continue;
    if (key !== HISTORY_RECORD_FIELDS[count]) inSchemaOrder = false;
    count++;
  }
  if (count !== FIELD_COUNT) return undefined;
  if (!inSchemaOrder) for (const field of HISTORY_RECORD_FIELDS) if (!hasOwn(r, field)) return undefined;
  const {
    start_time,
    end_time,
    user_email,
    token_value,
    virtual_token_value,
    domains,
    mode,
    mode_udp,
    client_ip,
    port,
  } = r;
  if (typeof start_time !== 'string' || !isInstant(start_time)) return undefined;
  if (end_time !== null && (typeof end_time !== 'string' || !isInstant(end_time))) return undefined;
  if (typeof user_email !== 'string' || typeof mode !== 'string' || typeof mode_udp !== 'string')
    return undefined;
  if (typeof client_ip !== 'string') return undefined;
  if (token_value !== null && typeof token_value !== 'string') return undefined;
  if (virtual_token_value !== null && typeof virtual_token_value !== 'string') return undefined;
  if (port !== null && !(Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65_535))
    return undefined;
  if (!Array.isArray(domains)) return undefined;
  for (const d of domains) if (typeof d !== 'string' || !wellFormed(d)) return undefined;
  if (!wellFormed(user_email) || !wellFormed(mode) || !wellFormed(mode_udp) || !wellFormed(client_ip))
    return undefined;
  if (token_value !== null && !wellFormed(token_value)) return undefined;
  if (virtual_token_value !== null && !wellFormed(virtual_token_value)) return undefined;
  if (!Object.is(port, -0) && inSchemaOrder) return raw as HistoryRecord;
  return {
    start_time,
    end_time,
    user_email,
    token_value,
    virtual_token_value,
    domains: [...domains],
    mode,
    mode_udp,
    client_ip,
    port: port === null ? null : noNegativeZero(port as number),
  } as HistoryRecord;
}

/** Whether a string is text Parquet holds as it is (see `loneSurrogateAt`). */
function wellFormed(text: string): boolean {
  return loneSurrogateAt(text) < 0;
}
