import * as z from 'zod';
import { loneSurrogateAt } from './loneSurrogateAt.ts';
import { noNegativeZero } from './noNegativeZero.ts';
import { parseInstant } from './toEpochMs.ts';

/**
 * Wire schemas of the tunnel session API (`shared/seed/tunnel-session-api.md` §2).
 * Objects are loose: fields the seed does not name are kept, never dropped, never fatal.
 */

/** A strict ISO 8601 instant with an explicit offset (see `parseInstant`, the one date-time parser). */
const isoDateTime = z.string().refine((text) => parseInstant(text).ok, {
  error: (issue) => {
    const parsed = parseInstant(issue.input);
    return parsed.ok ? 'not an ISO 8601 date-time' : parsed.reason;
  },
});

/** An integer the archive stores: JSON's `-0` is read as 0, the integer a Parquet file holds back. */
const wireInt = z.number().int().transform(noNegativeZero);

/** A TCP/UDP port: an integer in 0..65535 (it is stored as Parquet INT32; `-0` is read as 0). */
export const portSchema = z.number().int().min(0).max(65_535).transform(noNegativeZero);

/**
 * Text a history record stores: well-formed Unicode only. A lone surrogate (JSON's `"\ud800"`) would be
 * stored as U+FFFD, so the record is quarantined with its raw JSON instead of archived altered.
 */
const wireText = z.string().refine((text) => loneSurrogateAt(text) < 0, {
  error: (issue) =>
    `holds a lone surrogate at index ${loneSurrogateAt(issue.input as string)} (not well-formed Unicode, which Parquet's UTF-8 text cannot hold)`,
});

export const activeSessionSchema = z.looseObject({
  id: z.string(),
  userId: wireInt,
  tokenId: wireInt,
  token: z.unknown().nullable(),
  tokenName: z.unknown().nullable(),
  virtualToken: z.string(),
  virtualTokenName: z.unknown().nullable(),
  subdomain: z.string(),
  customdomain: z.unknown().nullable(),
  mode: z.string(),
  modeUdp: z.string(),
  port: wireInt,
  creationTimestamp: isoDateTime,
  lastUpdateTimestamp: isoDateTime,
});
export type ActiveSession = z.infer<typeof activeSessionSchema>;
export const activeListSchema = z.array(activeSessionSchema);

export const historyRecordSchema = z.looseObject({
  start_time: isoDateTime,
  end_time: isoDateTime.nullable(),
  user_email: wireText,
  token_value: wireText.nullable(),
  virtual_token_value: wireText.nullable(),
  domains: z.array(wireText),
  mode: wireText,
  mode_udp: wireText,
  client_ip: wireText,
  port: portSchema.nullable(),
});
/**
 * A history record that passed the wire schema. The checks that need the clock (time range, end after
 * start) and the `client_ip` port are applied on top by `validateHistoryRecord`.
 */
export type HistoryRecord = z.infer<typeof historyRecordSchema>;

/** The history record fields the seed names; anything else goes to `extra_json`. */
export const HISTORY_RECORD_FIELDS = Object.keys(historyRecordSchema.shape) as (keyof HistoryRecord)[];

export const sortSchema = z.looseObject({ empty: z.boolean(), sorted: z.boolean(), unsorted: z.boolean() });

export const pageableSchema = z.looseObject({
  pageNumber: z.number().int(),
  pageSize: z.number().int(),
  sort: sortSchema,
  offset: z.number().int(),
  paged: z.boolean(),
  unpaged: z.boolean(),
});

/** Page envelope; `content` items are validated one by one so one bad record cannot hide a page. */
const pageEnvelopeShape = {
  totalElements: z.number().int().nonnegative(),
  totalPages: z.number().int().nonnegative(),
  size: z.number().int().nonnegative(),
  content: z.array(z.unknown()),
  number: z.number().int().nonnegative(),
  sort: sortSchema,
  pageable: pageableSchema,
  numberOfElements: z.number().int().nonnegative(),
  first: z.boolean(),
  last: z.boolean(),
  empty: z.boolean(),
};
export const pageEnvelopeSchema = z.looseObject(pageEnvelopeShape);
const pageFieldsSchema = z.object(pageEnvelopeShape);
/** The envelope's named fields (extra fields are kept at run time but not typed). */
export type PageEnvelope = z.infer<typeof pageFieldsSchema>;

/** A content item that did not match the history record schema: kept raw, with the reason. */
export interface RejectedRecord {
  raw: unknown;
  reason: string;
}

/** A validated history page: the envelope, its valid records, and the items that failed validation. */
export type HistoryPage = Omit<PageEnvelope, 'content'> & {
  [extra: string]: unknown;
  content: HistoryRecord[];
  rejected: RejectedRecord[];
};
