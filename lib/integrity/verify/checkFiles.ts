import {
  archiveKeys,
  type ByteSource,
  type DigestChain,
  type DigestFile,
  dataKeyInfo,
  digestKeys,
  type ObjectInfo,
  type ObjectStore,
  objectSource,
  parquetRowCount,
  readStringColumn,
  sha256OfSource,
} from '../../archive/index.ts';
import { ArchiverError, IdSet, readAhead } from '../../foundation/index.ts';
import type { VerifyFailure } from './verifyTypes.ts';

export interface FileCheck {
  failures: VerifyFailure[];
  files: number;
  rows: number;
  /** Distinct `record_id`s across `history/`. */
  records: number;
  /** The `record_id`s of the partitions `keepIds` selected (for the upstream comparison). */
  recordIds: Set<string>;
  /** Objects no digest lists that were written after the newest digest (`digestedUntil`): not yet due. */
  awaitingDigest: string[];
}

/** Files read and hashed at once by verify: bounded, so memory and connections do not grow with the archive. */
const READ_CONCURRENCY = 8;

/**
 * Data checks: every object under `history/`, `active/` and `quarantine/` is listed in exactly one
 * digest, every listed file exists with the listed SHA-256 (and, for Parquet, row count), and no
 * `record_id` appears twice.
 * A record's id fixes its `start_time`, hence its `dt`, so doubles can only sit in one partition: ids
 * are held one partition at a time, as 128-bit ids in typed-array sets (about 50 bytes an id), and as
 * strings only for the partitions `keepIds` selects. Files are read by ranges (the footer, 1 MiB hash
 * chunks, the id column one row group at a time): a file is never held whole in memory.
 */
export async function checkFiles(
  objects: ObjectStore,
  chain: DigestChain,
  keepIds: (dt: string) => boolean = () => false,
  /** Check only objects of partitions (and quarantine days) from this day on; the rest is skipped unread. */
  since?: string,
  onProgress?: (done: { files: number; bytes: number; listed: number }) => void,
  /** When the newest digest was written: an unlisted object written after it awaits the next digest. */
  digestedUntil?: Date,
): Promise<FileCheck> {
  const { listed, failures } = listedFiles(chain);
  const inScope = (key: string) => since === undefined || (dataKeyInfo(key).dt ?? '') >= since;
  const checked = await checkListedFiles(objects, listed, {
    inScope: (o) => inScope(o.key),
    keepIds,
    ...(onProgress ? { onProgress } : {}),
    ...(digestedUntil ? { digestedUntil } : {}),
  });
  return { ...checked, failures: [...failures, ...checked.failures] };
}

/** A listed file and the digest that lists it. */
export interface ListedFile {
  file: DigestFile;
  digest: string;
}

/** Every file the chain lists, by key, with a `chain` failure for a key listed by two digests (the first kept). */
export function listedFiles(chain: DigestChain): {
  listed: Map<string, ListedFile>;
  failures: VerifyFailure[];
} {
  const failures: VerifyFailure[] = [];
  const listed = new Map<string, ListedFile>();
  for (const e of chain.entries) {
    for (const file of e.digest?.files ?? []) {
      const earlier = listed.get(file.key);
      if (earlier) {
        failures.push({
          kind: 'chain',
          object: file.key,
          message: `${file.key} is listed in both ${earlier.digest} and ${e.key}`,
        });
        continue;
      }
      listed.set(file.key, { file, digest: e.key });
    }
  }
  return { listed, failures };
}

export interface FileScope {
  /** Key prefixes listed (default: every prefix a digest lists files of). */
  prefixes?: readonly string[];
  /** Which listed objects (and which listed files, by key) are checked; the rest is skipped unread. */
  inScope?: (o: { key: string; modifiedAt?: Date }) => boolean;
  keepIds?: (dt: string) => boolean;
  onProgress?: (done: { files: number; bytes: number; listed: number }) => void;
  /**
   * When the newest digest the check reads was written (by the store's clock). Files are published before
   * the digest that lists them (a run's own at its end; the snapshots' at the next run's end), so an
   * unlisted object written after it is awaiting that digest, not a failure: the next check, whose digests
   * list it or not, judges it (`awaitingDigest`). Unset: every unlisted object is a failure.
   */
  digestedUntil?: Date;
}

/**
 * The file checks of `checkFiles` over the objects in `scope` against `listed` (what the digests list):
 * a full verify runs them over the whole archive, a verify job over one partition at a time.
 */
export async function checkListedFiles(
  objects: ObjectStore,
  listed: ReadonlyMap<string, ListedFile>,
  scope: FileScope = {},
): Promise<FileCheck> {
  const inScope = scope.inScope ?? (() => true);
  const keepIds = scope.keepIds ?? (() => false);
  const onProgress = scope.onProgress;
  async function* inScopeOf(all: AsyncIterable<ObjectInfo>): AsyncGenerator<ObjectInfo> {
    for await (const o of all) if (inScope(o)) yield o;
  }
  const failures: VerifyFailure[] = [];
  const present = new Set<string>();
  let ids = new PartitionIds();
  let partition: string | undefined;
  let records = 0;
  const recordIds = new Set<string>();
  const awaitingDigest: string[] = [];
  const duplicates = new Map<string, { a: string; b: string; n: number }>();
  let files = 0;
  let rows = 0;
  let seen = 0;
  let bytes = 0;
  for (const prefix of scope.prefixes ?? digestKeys.listedPrefixes) {
    const quarantine = prefix.startsWith(archiveKeys.quarantinePrefix);
    // Up to READ_CONCURRENCY files are read and hashed ahead, in order; ids are still checked one file at a time.
    const facts = readAhead(inScopeOf(objects.list(prefix)), READ_CONCURRENCY, async (o) => ({
      o,
      read: await readFileFacts(objects, o, !quarantine),
    }));
    for await (const { o, read } of facts) {
      if (!read) continue; // removed between list and read
      present.add(o.key);
      seen++;
      bytes += o.size;
      onProgress?.({ files: seen, bytes, listed: listed.size });
      if (!quarantine) files++;
      const { source, count, sha } = read;
      rows += count ?? 0;
      const entry = listed.get(o.key);
      const digestedUntil = scope.digestedUntil;
      if (!entry && digestedUntil && o.modifiedAt !== undefined && o.modifiedAt > digestedUntil) {
        awaitingDigest.push(o.key);
      } else if (!entry) {
        failures.push({
          kind: 'unlisted',
          object: o.key,
          message: `${o.key} is not listed in any digest: an extra or foreign file`,
        });
      } else {
        const { file, digest } = entry;
        if (sha !== file.sha256) {
          failures.push({
            kind: 'hash',
            object: o.key,
            message: `${o.key} has SHA-256 ${sha}, but ${digest} lists ${file.sha256}: its content changed`,
          });
        }
        if (!quarantine && (count === null || count !== file.rows)) {
          failures.push({
            kind: 'rows',
            object: o.key,
            message: `${o.key} has ${count ?? 'no readable'} rows, but ${digest} lists ${file.rows ?? 'none'}`,
          });
        }
      }
      if (!o.key.startsWith('history/') || count === null) continue;
      const dt = /^history\/([^/]+)\//.exec(o.key)?.[1] ?? '';
      if (dt !== partition) {
        // Keys are listed in order, so a partition's files are contiguous.
        partition = dt;
        ids = new PartitionIds();
      }
      const keep = keepIds(dt.replace(/^dt=/, ''));
      let malformed = 0;
      try {
        ids.startFile(o.key, count);
        for await (const id of readStringColumn(source, 'record_id')) {
          const other = ids.add(id);
          if (other === 'malformed') {
            malformed++;
          } else if (other === undefined) {
            records++;
            if (keep) recordIds.add(id);
          } else {
            const pair = `${other}\n${o.key}`;
            const d = duplicates.get(pair) ?? { a: other, b: o.key, n: 0 };
            d.n++;
            duplicates.set(pair, d);
          }
        }
      } catch (error) {
        if (ArchiverError.is(error, 'STORE_FAILED')) throw error;
        failures.push({
          kind: 'rows',
          object: o.key,
          message: `${o.key} has no readable record_id column: ${(error as Error).message}`,
        });
        continue;
      }
      if (malformed > 0) {
        failures.push({
          kind: 'rows',
          object: o.key,
          message: `${o.key} holds ${malformed} record_id(s) that are not 32 hex characters: not written by this archiver`,
        });
      }
    }
  }
  for (const [key, { digest }] of listed) {
    if (!present.has(key) && inScope({ key })) {
      failures.push({
        kind: 'missing-file',
        object: key,
        message: `${key} is listed in ${digest} but is gone`,
      });
    }
  }
  for (const { a, b, n } of duplicates.values()) {
    // Blame the copy the digests do not list, when one of the two is unlisted.
    const [kept, extra] = !listed.has(a) && listed.has(b) ? [b, a] : [a, b];
    failures.push({
      kind: 'duplicate',
      object: extra,
      message:
        a === b
          ? `${b} holds ${n} record_id(s) twice`
          : `${extra} repeats ${n} record_id(s) also archived in ${kept}`,
    });
  }
  return { failures, files, rows, records, recordIds, awaitingDigest };
}

/** Footer row count and SHA-256 of a stored object, by ranged reads; undefined when it is gone. */
export async function readFileFacts(
  objects: ObjectStore,
  o: ObjectInfo,
  parquet: boolean,
): Promise<{ source: ByteSource; count: number | null; sha: string } | undefined> {
  const source = objectSource(objects, o.key, o.size);
  try {
    const count = parquet ? await parquetRowCount(source) : null;
    return { source, count, sha: await sha256OfSource(source) };
  } catch (error) {
    if (ArchiverError.is(error, 'STORE_FAILED') && (await objects.head(o.key)) === undefined)
      return undefined;
    throw error;
  }
}

/**
 * The ids of one partition, with the file each came from: one `IdSet` per file, and one for the whole
 * partition so that the common case (a new id) is a single lookup; only a double searches the files.
 */
export class PartitionIds {
  readonly #all = new IdSet();
  readonly #files: { key: string; ids: IdSet }[] = [];

  startFile(key: string, rows: number): void {
    this.#files.push({ key, ids: new IdSet(Math.max(1024, rows)) });
  }

  /** Undefined for a first sighting; else the key of the file that already holds the id. */
  add(id: string): string | 'malformed' | undefined {
    const current = this.#files.at(-1);
    if (!current) throw new ArchiverError('INTERNAL', 'PartitionIds.add before startFile');
    if (id.length !== 32 || !/^[0-9a-fA-F]{32}$/.test(id)) return 'malformed';
    if (this.#all.add(id)) {
      current.ids.add(id);
      return undefined;
    }
    return this.#files.find((f) => f.ids.has(id))?.key;
  }
}
