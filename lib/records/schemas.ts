import * as z from 'zod';
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

/** A TCP/UDP port: an integer in 0..65535 (it is stored as Parquet INT32). */
export const portSchema = z.number().int().min(0).max(65_535);

export const activeSessionSchema = z.looseObject({
  id: z.string(),
  userId: z.number().int(),
  tokenId: z.number().int(),
  token: z.unknown().nullable(),
  tokenName: z.unknown().nullable(),
  virtualToken: z.string(),
  virtualTokenName: z.unknown().nullable(),
  subdomain: z.string(),
  customdomain: z.unknown().nullable(),
  mode: z.string(),
  modeUdp: z.string(),
  port: z.number().int(),
  creationTimestamp: isoDateTime,
  lastUpdateTimestamp: isoDateTime,
});
export type ActiveSession = z.infer<typeof activeSessionSchema>;
export const activeListSchema = z.array(activeSessionSchema);

export const historyRecordSchema = z.looseObject({
  start_time: isoDateTime,
  end_time: isoDateTime.nullable(),
  user_email: z.string(),
  token_value: z.string().nullable(),
  virtual_token_value: z.string().nullable(),
  domains: z.array(z.string()),
  mode: z.string(),
  mode_udp: z.string(),
  client_ip: z.string(),
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
