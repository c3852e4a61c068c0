import * as z from 'zod';
import { itemVersion, storedDay, storedObject } from '../state/storedItem.ts';

const nullableText = z.string().nullable();

/** The observed fields of a live session as stored: `ObservedFields` with times as ISO strings. */
export const storedObservedFieldsSchema = storedObject({
  id: z.string(),
  user_id: z.number().int(),
  token_id: z.number().int(),
  token: nullableText,
  token_hmac: nullableText,
  token_name: nullableText,
  virtual_token: nullableText,
  virtual_token_hmac: nullableText,
  virtual_token_name: nullableText,
  subdomain: z.string(),
  customdomain: nullableText,
  mode: z.string(),
  mode_udp: z.string(),
  port: z.number().int(),
  creation_time: z.string(),
  last_update_time: z.string(),
  extra_json: nullableText,
  /**
   * HMAC of the token the session was opened with (`liveJoinToken`: the token, or the virtual token less
   * its `-<port>`), under `keep` and `hash`: what joins it to its history record. Null in state written
   * before it existed.
   */
  join_token_hmac: nullableText.default(null),
});

export type StoredObservedFields = z.infer<typeof storedObservedFieldsSchema>;

/** The last observation of one live session. */
export const activeObservationSchema = storedObject({
  fields: storedObservedFieldsSchema,
  /** `contentHash` of `fields`: what the next snapshot is compared with. */
  hash: z.string(),
  /** Rows written for this id so far (part of the row id, so A→B→A→B changes stay distinct). */
  seq: z.number().int().nonnegative(),
  firstSeenAt: z.string(),
  lastSeenAt: z.string(),
});

export type ActiveObservation = z.infer<typeof activeObservationSchema>;

/** Two snapshots further apart than twice the schedule: changes inside it were not seen one by one. */
export const snapshotGapSchema = storedObject({ from: z.string(), to: z.string(), ms: z.number() });

export type SnapshotGap = z.infer<typeof snapshotGapSchema>;

/** A session seen `gone` recently: kept so that, if its id is listed again, its rows get fresh ids. */
export const closedSessionSchema = storedObject({
  /** Rows written for this id, its `gone` row included. */
  seq: z.number().int().nonnegative(),
  goneAt: z.string(),
});

export type ClosedSession = z.infer<typeof closedSessionSchema>;

/**
 * A row of `active/` as the state's `pending` keeps it. The observed fields of a `seen`/`changed` row are
 * the session's `fields` in the same item, so only a `gone` row (whose session has left `sessions`)
 * carries its own: the item stays half the size on a first snapshot.
 */
export const pendingActiveRowSchema = storedObject({
  row_id: z.string(),
  observed_at: z.string(),
  event: z.enum(['seen', 'changed', 'gone']),
  id: z.string(),
  /** Present only on `gone` rows. */
  fields: storedObservedFieldsSchema.exactOptional(),
});

export type PendingActiveRow = z.infer<typeof pendingActiveRowSchema>;

/** Rows derived from a snapshot whose commit is not confirmed yet (write-ahead). */
export const pendingActiveRowsSchema = storedObject({
  dt: storedDay,
  rows: z.array(pendingActiveRowSchema),
  /** The batch's name (its first row's id): absent when an older release stored the rows. */
  batch: z.string().exactOptional(),
  /** Set when a commit of the batch may have begun: it never gains rows, and the next run commits it. */
  sealed: z.boolean().exactOptional(),
});

export type PendingActiveRows = z.infer<typeof pendingActiveRowsSchema>;

/** The last observation of each live session and when the last snapshot was taken. */
const activeObservationsShape = {
  sessions: z.record(z.string(), activeObservationSchema),
  /** Ids seen `gone` in the last day (tombstones). */
  closed: z.record(z.string(), closedSessionSchema).exactOptional(),
  lastSnapshotAt: z.string().exactOptional(),
};

export type ActiveObservations = z.infer<z.ZodObject<typeof activeObservationsShape>>;

/** Live-session state: one item; rebuildable from `active/` (the last row per id). */
export const activeStateSchema = storedObject({
  ...activeObservationsShape,
  /**
   * Set before the rows of a snapshot are committed and cleared after: a run that finds it commits
   * those rows again (the commit drops the `row_id`s already held) before it does anything else.
   */
  pending: pendingActiveRowsSchema.exactOptional(),
  /** Most recent snapshot gaps, newest last (bounded). */
  gaps: z.array(snapshotGapSchema),
  /** Optimistic concurrency: incremented by every write. 0 = never stored. */
  version: itemVersion,
});

export type ActiveState = z.infer<typeof activeStateSchema>;
