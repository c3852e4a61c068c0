/** One stored item of the state table: its key, its version (every write adds one) and its JSON `data`. */
export interface VersionedItem {
  pk: string;
  version: number;
  /** The entity without its `version`, as JSON (DynamoDB's `data` attribute). */
  data: string;
}

/**
 * The primitive every state backend implements once (DynamoDB, also run locally on dynalite; the
 * in-memory fake of the tests): the versioned concerns (manifests, day state, meta) are written once on
 * top of it (`versionedConcerns.ts`).
 */
export interface VersionedItems {
  /** Where the items live, for messages (e.g. `in DynamoDB table 'state'`). */
  readonly where: string;
  /** The item, read consistently, or `undefined`. */
  get(pk: string): Promise<VersionedItem | undefined>;
  /**
   * Stores `data` under `pk` at `version + 1` if the stored version is still `version` (0: absent);
   * otherwise fails with `ArchiverError('CONFLICT')` carrying `details: { pk, expectedVersion }`.
   */
  put(pk: string, version: number, data: string): Promise<void>;
  /** Removes the item (nothing when absent). */
  delete(pk: string): Promise<void>;
  /** Every item whose key starts with `prefix`, in no particular order. */
  query(prefix: string): Promise<VersionedItem[]>;
}
