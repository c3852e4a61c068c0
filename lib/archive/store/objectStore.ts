/** One object in a listing. Keys are relative to the store's root (no leading slash). */
export interface ObjectInfo {
  key: string;
  size: number;
  /** When the object was written, by the store's clock (S3 `LastModified`, a file's mtime), when the store says. */
  modifiedAt?: Date;
}

/** What a store holds about an object's bytes without reading them. */
export interface StoredChecksum {
  size: number;
  /** Lower-case hex SHA-256 of the whole object, when the store computed one at write time. */
  sha256?: string;
}

/**
 * Port: where Parquet and quarantine files go (`file://DIR` or `s3://bucket/prefix`).
 * Every write is atomic: an object is either absent or complete under its key, never half-written.
 */
export interface ObjectStore {
  /** The destination URL this store was built from, for messages. */
  readonly url: string;
  /** Uploads a local file under `key` (streamed, not read into memory). Returns the bytes written. */
  putFile(key: string, localPath: string): Promise<number>;
  /** Writes a small body under `key`. */
  put(key: string, body: Uint8Array | string): Promise<number>;
  /**
   * Write-once: writes `body` under `key` only when no object is there (S3 `If-None-Match: *`).
   * Returns true when this call created it, false when an object already existed (left untouched).
   */
  putIfAbsent(key: string, body: Uint8Array | string): Promise<boolean>;
  /** Whole object, or `undefined` when absent. */
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * Bytes `[start, end)` of the object (fewer at its end), or `undefined` when absent: how big files are
   * hashed and their Parquet footers read without holding a whole file in memory. With `into` (at least
   * `end - start` bytes), an adapter may read into it and return a view of it, so that a reader of many
   * ranges (a hash) reuses one buffer instead of leaving one a range to the garbage collector: the
   * caller is done with the bytes before it asks for the next range into the same buffer.
   */
  getRange(key: string, start: number, end: number, into?: Uint8Array): Promise<Uint8Array | undefined>;
  /** Size of the object, or `undefined` when absent. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /**
   * The full-object SHA-256 the store keeps for `key` (S3 `ChecksumSHA256` of `FULL_OBJECT` type), without
   * reading the object; `sha256` absent when it keeps none; `undefined` when the object is absent. Stores
   * that never keep one leave the method out, and a verifier reads the bytes instead.
   */
  storedChecksum?(key: string): Promise<StoredChecksum | undefined>;
  /** All objects whose key starts with `prefix`, across every listing page. */
  list(prefix: string): AsyncIterable<ObjectInfo>;
  /**
   * Makes `fromKey` visible as `toKey` atomically, then removes `fromKey`. Idempotent: when
   * `fromKey` is gone and `toKey` exists, it is a no-op; it never overwrites an existing `toKey`.
   */
  publish(fromKey: string, toKey: string): Promise<void>;
  /** Removes a staging object (only ever called on keys under `_staging/`). Absent is fine. */
  deleteStaging(key: string): Promise<void>;
  close?(): Promise<void>;
}
