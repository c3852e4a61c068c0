import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock/clock.ts';
import type { Day } from '../clock/day.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import type { Logger } from '../log/logger.ts';
import type { Dataset, ManifestFile, PartitionManifest, StateStore } from '../state/stateStore.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { archiveKeys } from './archiveKeys.ts';
import { brokenPartition } from './brokenPartition.ts';
import { IdSet } from './idSet.ts';
import { publishPending } from './publishPending.ts';
import { putManifestOnce } from './putManifestOnce.ts';

/** The ids a commit is about: an `IdSet` (16 bytes an id) or any set of 32-hex ids. */
export type IdCollection = Iterable<string> & { readonly size: number; has(id: string): boolean };

/** How one dataset's rows become a Parquet file, and how the dedupe ids come back out of one. */
export interface DatasetWriter<Row> {
  dataset: Dataset;
  /** Writes `rows` to a local Parquet file; returns how many rows it wrote. */
  write(rows: AsyncIterable<Row>, localPath: string): Promise<{ rows: number }>;
  /** The dedupe ids (`record_id`, `row_id`) stored in a published file. */
  readIds(bytes: Uint8Array): Promise<Iterable<string>>;
}

export interface CommitterDeps {
  objects: ObjectStore;
  state: StateStore;
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

/** Re-reads and restagings before a partition that keeps changing under us is given up (for this run). */
const MAX_CONFLICTS = 5;

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

  /** Ids archived in a partition, read from the files its manifest lists (cached per run). */
  async knownIds<Row>(writer: DatasetWriter<Row>, manifest: PartitionManifest): Promise<IdSet> {
    const cacheKey = `${writer.dataset}#${manifest.dt}`;
    const ids = this.#ids.get(cacheKey) ?? new IdSet();
    const loaded = this.#loaded.get(cacheKey) ?? new Set<string>();
    this.#ids.set(cacheKey, ids);
    this.#loaded.set(cacheKey, loaded);
    for (const file of manifest.files) {
      if (loaded.has(file.name)) continue;
      const finalKey = archiveKeys.dataOf(writer.dataset, manifest.dt, file.name);
      const bytes = file.published
        ? ((await this.#deps.objects.get(finalKey)) ?? (await this.#deps.objects.get(file.stagingKey)))
        : ((await this.#deps.objects.get(file.stagingKey)) ?? (await this.#deps.objects.get(finalKey)));
      if (!bytes) throw brokenPartition(writer.dataset, manifest.dt, file, finalKey);
      for (const id of await writer.readIds(bytes)) ids.add(id);
      loaded.add(file.name);
    }
    return ids;
  }

  /**
   * Writes the rows of partition `dt` whose id is in `ids` and not archived yet (`rows` yields
   * `[id, row]`, each id once); returns what was added.
   */
  async commit<Row>(
    writer: DatasetWriter<Row>,
    dt: Day,
    ids: IdCollection,
    rows: () => AsyncIterable<readonly [string, Row]>,
  ): Promise<CommitResult> {
    const { state, objects, logger } = this.#deps;
    const dataset = writer.dataset;
    for (let attempt = 1; attempt <= MAX_CONFLICTS; attempt++) {
      const manifest = (await state.getPartition(dt, dataset)) ?? emptyManifest(dataset, dt);
      const known = await this.knownIds(writer, manifest);
      const fresh = new IdSet(ids.size);
      for (const id of ids) if (!known.has(id)) fresh.add(id);
      if (fresh.size === 0) {
        await publishPending(this.#deps, manifest);
        return { newRecords: 0, files: 0, bytes: 0 };
      }
      const file = await this.#stage(writer, dt, fresh, rows);
      const outcome = await putManifestOnce(this.#deps, manifest, file);
      if (outcome === 'moved-on') {
        // Certainly unlisted: our conditional put required a version the manifest has left behind.
        await objects.deleteStaging(file.stagingKey).catch(() => {});
        logger.warn('partition changed under us; re-reading it', { dataset, dt, attempt });
        continue;
      }
      for (const id of fresh) known.add(id);
      this.#loaded.get(`${dataset}#${dt}`)?.add(file.name);
      await publishPending(this.#deps, outcome);
      return { newRecords: fresh.size, files: 1, bytes: file.bytes };
    }
    throw new ArchiverError('CONFLICT', `Partition ${dataset}/dt=${dt} kept changing during commit`);
  }

  async #stage<Row>(
    writer: DatasetWriter<Row>,
    dt: Day,
    fresh: IdSet,
    rows: () => AsyncIterable<readonly [string, Row]>,
  ): Promise<ManifestFile> {
    const { clock, runId, fence, tmpDir, objects } = this.#deps;
    const now = clock.now();
    const name = `${archiveKeys.stamp(now)}-${runId}-${String(++this.#seq).padStart(4, '0')}.parquet`;
    // Streamed from the spill file: memory holds one row group, not the day.
    async function* freshRows(): AsyncGenerator<Row> {
      for await (const [id, row] of rows()) if (fresh.has(id)) yield row;
    }
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    const localPath = join(tmpDir, name);
    try {
      const written = await writer.write(freshRows(), localPath);
      if (written.rows !== fresh.size) {
        throw new ArchiverError(
          'INTERNAL',
          `${writer.dataset}/dt=${dt}: wrote ${written.rows} rows for ${fresh.size} new records`,
        );
      }
      const stagingKey = archiveKeys.stagingOf(writer.dataset, runId, dt, name);
      const bytes = await objects.putFile(stagingKey, localPath);
      return {
        name,
        stagingKey,
        rows: written.rows,
        bytes,
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

export function emptyManifest(dataset: Dataset, dt: Day): PartitionManifest {
  return dataset === 'history' ? { dt, files: [], version: 0 } : { dt, dataset, files: [], version: 0 };
}
