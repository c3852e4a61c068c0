import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ArchiverError,
  type Clock,
  type Day,
  ensureRunFolder,
  IdSet,
  type Logger,
  mapLimit,
  presizedFor,
  sha256OfFile,
} from '../../foundation/index.ts';
import { pendingDigest } from '../digest/pendingDigest.ts';
import type { Dataset, ManifestFile, PartitionManifest } from '../state/partitionManifest.ts';
import type { ManifestStore, MetaStore } from '../state/statePorts.ts';
import { type ByteSource, objectSource } from '../store/byteSource.ts';
import type { ObjectInfo, ObjectStore } from '../store/objectStore.ts';
import { archiveKeys } from './archiveKeys.ts';
import { brokenPartition } from './brokenPartition.ts';
import { publishPending } from './publishPending.ts';
import { putManifestOnce } from './putManifestOnce.ts';

/** Names of listed files whose ids a caller holds already, and so never asks about (see `knownIds`). */
export type CoveredFiles = ReadonlySet<string>;

/** The ids a commit is about: an `IdSet` (16 bytes an id) or any set of 32-hex ids. */
export type IdCollection = Iterable<string> & { readonly size: number; has(id: string): boolean };

/** How one dataset's rows become a Parquet file, and how the dedupe ids come back out of one. */
export interface DatasetWriter<Row> {
  dataset: Dataset;
  /** Writes `rows` to a local Parquet file; returns how many rows it wrote. */
  write(rows: AsyncIterable<Row>, localPath: string): Promise<{ rows: number }>;
  /** The dedupe ids (`record_id`, `row_id`) stored in a file, streamed (ranged reads of one column). */
  readIds(source: ByteSource): AsyncIterable<string>;
  /**
   * The same ids added straight into a set, when the dataset has a faster way than strings (history's
   * `record_id`: parsed from the stored bytes). The committer uses it when given.
   */
  addIds?(source: ByteSource, into: IdSet): Promise<void>;
  /** The dedupe id of one row. */
  idOf(row: Row): string;
}

/** A local Parquet file written row by row (see `HistoryParquetFile`). */
export interface RowFile<Row> {
  readonly path: string;
  /** Returns a promise (to await: back-pressure) only when the row ended a row group. */
  add(row: Row): undefined | Promise<void>;
  finish(): Promise<{ rows: number; bytes: number }>;
  abort(): Promise<void>;
}

/** A dataset whose files can be written while its rows are still arriving (a day walk's). */
export interface StreamingDatasetWriter<Row> extends DatasetWriter<Row> {
  create(localPath: string): Promise<RowFile<Row>>;
  /** The rows of a finished local file, in order (only when a concurrent commit forces a rewrite). */
  readRows(localPath: string): AsyncIterable<Row>;
}

/** A finished local file of rows none of which were archived when it was written, and their ids. */
export interface DraftFile {
  path: string;
  ids: IdSet;
  rows: number;
}

/** What one commit attempt stages: a local file holding exactly the rows of `fresh`. */
type Produce = (fresh: IdSet, localPath: string) => Promise<{ path: string; rows: number }>;

export interface CommitterDeps {
  objects: ObjectStore;
  /** Manifests, and META for the notes of the next digest (`pendingDigest`). */
  state: ManifestStore & MetaStore;
  clock: Clock;
  logger: Logger;
  runId: string;
  fence: number;
  tmpDir: string;
}

export interface CommitResult {
  newRecords: number;
  files: number;
  bytes: number;
}

/**
 * Re-reads and restagings before a partition that keeps changing under us is given up (for this run).
 * Each lost attempt means another writer's commit landed, so this many covers a fan-out's ranges committing
 * one day's partition together (the stack's concurrency and then some), not only a rare race.
 */
const MAX_CONFLICTS = 12;

/** Listed files whose ids are read at once (each by ranged reads of its id column). */
const ID_FILES_IN_FLIGHT = 8;

/** The wait before the next attempt after a lost one: full jitter under a doubling ceiling (at most 1 s). */
const conflictBackoffMs = (attempt: number): number => Math.random() * Math.min(1_000, 25 * 2 ** attempt);

/**
 * Appends rows to a Hive partition exactly once. The partition manifest in the state store is the commit
 * log: a Parquet file is first staged under `_staging/`, then listed in the manifest by a conditional write,
 * and only then published (by a move that never overwrites). A write whose outcome is unknown (a lost
 * response, a retried conditional put answered CONFLICT, a timeout) is settled by re-reading the manifest:
 * if our file is listed, the commit happened. A staged file is deleted only when it is certainly unlisted
 * (the manifest moved past the version our conditional put required); otherwise it is left for the orphan
 * sweep. The ids already archived are read back from the listed files, so a retry never writes a row twice.
 */
export class PartitionCommitter {
  readonly #deps: CommitterDeps;
  readonly #ids = new Map<string, IdSet>();
  readonly #loaded = new Map<string, Set<string>>();
  #seq = 0;

  constructor(deps: CommitterDeps) {
    this.#deps = deps;
  }

  /**
   * Ids archived in a partition, read from the files its manifest lists (cached per run). `covered`: names
   * of listed files whose ids the caller will never ask about (a resumed walk's own earlier files, whose
   * ids it drops before they reach a partition): they are not read, so the set returned then holds every
   * id of the other files (and may hold some of theirs, read for another caller; any id in it is archived).
   */
  async knownIds<Row>(
    writer: DatasetWriter<Row>,
    manifest: PartitionManifest,
    covered?: CoveredFiles,
  ): Promise<IdSet> {
    const cacheKey = `${writer.dataset}#${manifest.dt}`;
    const unreadOf = (loaded: ReadonlySet<string>) =>
      manifest.files.filter((file) => !loaded.has(file.name) && !covered?.has(file.name));
    // Sized once for the rows it is to read (a resumed walk's partition holds tens of thousands).
    const ids = this.#ids.get(cacheKey) ?? new IdSet(listedRows(unreadOf(new Set())));
    const loaded = this.#loaded.get(cacheKey) ?? new Set<string>();
    this.#ids.set(cacheKey, ids);
    this.#loaded.set(cacheKey, loaded);
    // Files a few at a time: a resumed walk's partition lists dozens of small ones, and their reads are
    // round trips, each waiting its turn on a busy event loop; one after another they took seconds.
    const unread = unreadOf(loaded);
    await mapLimit(unread, ID_FILES_IN_FLIGHT, async (file) => {
      const finalKey = archiveKeys.dataOf(writer.dataset, manifest.dt, file.name);
      await this.#readIdsOf(writer, file, finalKey, manifest.dt, ids);
      loaded.add(file.name);
    });
    return ids;
  }

  /**
   * Adds the ids of one listed file, reading only its id column by ranges (a large file is never held
   * whole in memory). The file is wherever it is now: staged or published; one that is published between
   * our look and our read is looked for again.
   */
  async #readIdsOf<Row>(
    writer: DatasetWriter<Row>,
    file: ManifestFile,
    finalKey: string,
    dt: Day,
    into: IdSet,
  ): Promise<void> {
    const { objects } = this.#deps;
    const order = file.published ? [finalKey, file.stagingKey] : [file.stagingKey, finalKey];
    for (let attempt = 1; ; attempt++) {
      let found: ObjectInfo | undefined;
      for (const key of order) {
        found = await objects.head(key);
        if (found) break;
      }
      if (!found) throw brokenPartition(writer.dataset, dt, file, finalKey);
      try {
        const source = objectSource(objects, found.key, found.size);
        if (writer.addIds) await writer.addIds(source, into);
        else for await (const id of writer.readIds(source)) into.add(id);
        return;
      } catch (error) {
        // Moved by a publish mid-read: adding ids again is harmless (a set), so read it where it is now.
        if (attempt >= 3 || !ArchiverError.is(error, 'STORE_FAILED')) throw error;
      }
    }
  }

  /**
   * The ids archived in partition `dt` now (re-reads the manifest; files already read are not re-read),
   * but those of the `covered` files (see `knownIds`).
   */
  async archivedIds<Row>(writer: DatasetWriter<Row>, dt: Day, covered?: CoveredFiles): Promise<IdSet> {
    const manifest =
      (await this.#deps.state.getPartition(dt, writer.dataset)) ?? emptyManifest(writer.dataset, dt);
    return this.knownIds(writer, manifest, covered);
  }

  /** Drops the cached ids of a partition (memory): the next commit to it reads its files again. */
  forget(dataset: Dataset, dt: Day): void {
    this.#ids.delete(`${dataset}#${dt}`);
    this.#loaded.delete(`${dataset}#${dt}`);
  }

  /**
   * Writes the rows of partition `dt` whose id is in `ids` and not archived yet (`rows` yields
   * `[id, row]`, each id once); returns what was added.
   */
  commit<Row>(
    writer: DatasetWriter<Row>,
    dt: Day,
    ids: IdCollection,
    rows: () => AsyncIterable<readonly [string, Row]>,
  ): Promise<CommitResult> {
    const asSet = ids instanceof IdSet ? ids : idSetOf(ids);
    return this.#commit(writer, dt, asSet, async (fresh, localPath) => {
      async function* freshRows(): AsyncGenerator<Row> {
        for await (const [id, row] of rows()) if (fresh.has(id)) yield row;
      }
      const written = await writer.write(freshRows(), localPath);
      return { path: localPath, rows: written.rows };
    });
  }

  /**
   * Commits a finished local file (`draft`) to partition `dt`. When the partition gained some of its ids
   * since the file was written (a concurrent writer), the file is rewritten without them first. The
   * caller removes `draft.path` afterwards. `covered`: listed files none of whose ids the draft holds (see
   * `knownIds`): their ids are not read to check it. Returns the name of the file it listed, if any.
   */
  commitDraft<Row>(
    writer: StreamingDatasetWriter<Row>,
    dt: Day,
    draft: DraftFile,
    covered?: CoveredFiles,
  ): Promise<CommitResult & { name?: string }> {
    if (draft.rows !== draft.ids.size) {
      throw new ArchiverError(
        'INTERNAL',
        `${writer.dataset}/dt=${dt}: draft holds ${draft.rows} rows for ${draft.ids.size} ids`,
      );
    }
    return this.#commit(
      writer,
      dt,
      draft.ids,
      async (fresh, localPath) => {
        if (fresh === draft.ids) return { path: draft.path, rows: draft.rows };
        async function* freshRows(): AsyncGenerator<Row> {
          for await (const row of writer.readRows(draft.path)) if (fresh.has(writer.idOf(row))) yield row;
        }
        const written = await writer.write(freshRows(), localPath);
        return { path: localPath, rows: written.rows };
      },
      undefined,
      covered,
    );
  }

  /**
   * Commits `rows` as one batch named `batch`, unless the partition already lists a file of that batch:
   * exactly once without reading any file's ids, for a writer that keeps its rows until a batch is
   * committed and gives a batch the same name on every try (the live-session rows).
   */
  commitBatch<Row>(
    writer: DatasetWriter<Row>,
    dt: Day,
    batch: string,
    rows: readonly Row[],
  ): Promise<CommitResult> {
    return this.#commit(
      writer,
      dt,
      idSetOf(rows.map((r) => writer.idOf(r))),
      async (_fresh, localPath) => {
        async function* all(): AsyncGenerator<Row> {
          yield* rows;
        }
        const written = await writer.write(all(), localPath);
        return { path: localPath, rows: written.rows };
      },
      batch,
    );
  }

  async #commit<Row>(
    writer: DatasetWriter<Row>,
    dt: Day,
    ids: IdSet,
    produce: Produce,
    batch?: string,
    covered?: CoveredFiles,
  ): Promise<CommitResult & { name?: string }> {
    const { state, objects, logger } = this.#deps;
    const dataset = writer.dataset;
    for (let attempt = 1; attempt <= MAX_CONFLICTS; attempt++) {
      const manifest = (await state.getPartition(dt, dataset)) ?? emptyManifest(dataset, dt);
      const known = batch === undefined ? await this.knownIds(writer, manifest, covered) : undefined;
      const fresh =
        known !== undefined
          ? ids.without(known)
          : manifest.files.some((f) => f.batch === batch)
            ? new IdSet()
            : ids;
      if (fresh.size === 0) {
        await publishPending(this.#deps, manifest);
        return { newRecords: 0, files: 0, bytes: 0 };
      }
      const staged = await this.#stage(writer, dt, fresh, produce);
      const file = batch === undefined ? staged : { ...staged, batch };
      // Noted for the next digest before it can be committed: whatever happens next, the digest that
      // finds it listed lists it, without listing the archive.
      await pendingDigest.note(state, [
        {
          key: archiveKeys.dataOf(dataset, dt, file.name),
          stagingKey: file.stagingKey,
          at: file.committedAt,
        },
      ]);
      const outcome = await putManifestOnce(this.#deps, manifest, file);
      if (outcome === 'moved-on') {
        // Certainly unlisted: our conditional put required a version the manifest has left behind.
        await objects.deleteStaging(file.stagingKey).catch(() => {});
        logger.warn('partition changed under us; re-reading it', { dataset, dt, attempt });
        // Writers that collided spread out, so the next round is not the same race again.
        if (attempt < MAX_CONFLICTS) await this.#deps.clock.sleep(conflictBackoffMs(attempt));
        continue;
      }
      if (known !== undefined) {
        // The committed ids join the cache; a partition that was empty simply takes the set (no copy).
        if (known.size === 0) this.#ids.set(`${dataset}#${dt}`, fresh);
        else known.addAll(fresh);
        this.#loaded.get(`${dataset}#${dt}`)?.add(file.name);
      }
      try {
        await publishPending(this.#deps, outcome);
      } catch (error) {
        // A refused file left the manifest: its ids are not archived, so none of them may stay cached.
        if (ArchiverError.is(error, 'STAGED_FILE_CHANGED')) this.forget(dataset, dt);
        throw error;
      }
      return { newRecords: fresh.size, files: 1, bytes: file.bytes, name: file.name };
    }
    throw new ArchiverError('CONFLICT', `Partition ${dataset}/dt=${dt} kept changing during commit`);
  }

  async #stage<Row>(
    writer: DatasetWriter<Row>,
    dt: Day,
    fresh: IdSet,
    produce: Produce,
  ): Promise<ManifestFile> {
    const { clock, runId, fence, tmpDir, objects } = this.#deps;
    const now = clock.now();
    const name = `${archiveKeys.stamp(now)}-${runId}-${String(++this.#seq).padStart(4, '0')}.parquet`;
    await ensureRunFolder(tmpDir);
    const localPath = join(tmpDir, name);
    try {
      const written = await produce(fresh, localPath);
      if (written.rows !== fresh.size) {
        throw new ArchiverError(
          'INTERNAL',
          `${writer.dataset}/dt=${dt}: wrote ${written.rows} rows for ${fresh.size} new records`,
        );
      }
      const stagingKey = archiveKeys.stagingOf(writer.dataset, runId, dt, name);
      // Hashed before it leaves this process: publish and the digest refuse bytes that are not these.
      const sha256 = await sha256OfFile(written.path, 'hex');
      const bytes = await objects.putFile(stagingKey, written.path);
      return {
        name,
        stagingKey,
        rows: written.rows,
        bytes,
        sha256,
        runId,
        fence,
        committedAt: now.toISOString(),
        published: false,
      };
    } finally {
      await rm(localPath, { force: true });
    }
  }
}

/** The rows the files hold, as the size to make the partition's id set. */
function listedRows(files: readonly ManifestFile[]): number {
  let rows = 0;
  for (const f of files) rows += f.rows;
  return presizedFor(rows);
}

function idSetOf(ids: Iterable<string>): IdSet {
  const out = new IdSet();
  for (const id of ids) out.add(id);
  return out;
}

export function emptyManifest(dataset: Dataset, dt: Day): PartitionManifest {
  return dataset === 'history' ? { dt, files: [], version: 0 } : { dt, dataset, files: [], version: 0 };
}
