/**
 * One stored item of the state table: its key, its version (every write adds one), its JSON `data` and,
 * for an item that carries binary data (the live state's gzip bytes), its `bytes`.
 */
export interface VersionedItem {
  pk: string;
  /** 0 for an item stored without a version (written before the primitive, e.g. the old lease). */
  version: number;
  /** The entity without its `version`, as JSON (DynamoDB's `data` attribute). */
  data: string;
  /** Binary payload beside `data`, when the item has one (DynamoDB's `bytes` attribute). */
  bytes?: Uint8Array;
}

/**
 * The primitive every state backend implements once (DynamoDB, `dynamoVersionedItems`; local mode's state
 * folder, `fileVersionedItems`; the in-memory fake of the tests): every concern of the state store (manifests, day state, meta, the lease,
 * the live state) is written once on top of it (`stateConcerns.ts`).
 */
export interface VersionedItems {
  /** Where the items live, for messages (e.g. `in DynamoDB table 'state'`). */
  readonly where: string;
  /** The item, read consistently, or `undefined`. */
  get(pk: string): Promise<VersionedItem | undefined>;
  /** The items of these keys that exist, each once, read consistently, in no particular order (few requests). */
  getMany(pks: readonly string[]): Promise<VersionedItem[]>;
  /**
   * Stores `data` (and `bytes`, if given; else none) under `pk` at `version + 1` if the stored version is
   * still `version` (0: absent, or stored without a version); otherwise fails with
   * `ArchiverError('CONFLICT')` carrying `details: { pk, expectedVersion }`.
   */
  put(pk: string, version: number, data: string, bytes?: Uint8Array): Promise<void>;
  /** Removes the item (nothing when absent). */
  delete(pk: string): Promise<void>;
  /** Every item whose key starts with `prefix`, in no particular order. */
  query(prefix: string): Promise<VersionedItem[]>;
}
