import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock/clock.ts';
import type { Day } from '../clock/day.ts';
import { ArchiverError } from '../errors/archiverError.ts';
import type { Logger } from '../log/logger.ts';
import { readRecordIds } from '../parquet/readHistoryParquet.ts';
import { writeHistoryParquet } from '../parquet/writeHistoryParquet.ts';
import type { ArchiveRow, TokenPolicy } from '../records/archiveRow.ts';
import { toArchiveRow } from '../records/toArchiveRow.ts';
import type { ManifestFile, PartitionManifest, StateStore } from '../state/stateStore.ts';
import type { ObjectStore } from '../store/objectStore.ts';
import { archiveKeys } from './archiveKeys.ts';
import type { RecordSpill } from './recordSpill.ts';

export interface CommitterDeps {
  objects: ObjectStore;
  state: StateStore;
  clock: Clock;
  logger: Logger;
  runId: string;
  fence: number;
  tmpDir: string;
  rowGroupSize: number;
  tokenPolicy: TokenPolicy;
}

export interface CommitResult {
  newRecords: number;
  files: number;
  bytes: number;
}

const MAX_CONFLICTS = 5;

/**
 * Appends records to a Hive partition exactly once. The partition manifest in the state store is
 * the commit log: a Parquet file is first staged under `_staging/`, then listed in the manifest by
 * a conditional write, and only then published under `history/` (by a move that never overwrites).
 * A run killed at any instant leaves either an unlisted staged file (ignored) or a listed one that
 * the next run publishes; the ids already archived are read back from the listed files.
 */
export class PartitionCommitter {
  readonly #deps: CommitterDeps;
  readonly #ids = new Map<Day, Set<string>>();
  readonly #loaded = new Map<Day, Set<string>>();
  #seq = 0;

  constructor(deps: CommitterDeps) {
    this.#deps = deps;
  }

  /** Record ids archived in `dt`, read from the files its manifest lists (cached per run). */
  async knownIds(manifest: PartitionManifest): Promise<Set<string>> {
    const ids = this.#ids.get(manifest.dt) ?? new Set<string>();
    const loaded = this.#loaded.get(manifest.dt) ?? new Set<string>();
    this.#ids.set(manifest.dt, ids);
    this.#loaded.set(manifest.dt, loaded);
    for (const file of manifest.files) {
      if (loaded.has(file.name)) continue;
      const finalKey = archiveKeys.data(manifest.dt, file.name);
      const bytes = file.published
        ? ((await this.#deps.objects.get(finalKey)) ?? (await this.#deps.objects.get(file.stagingKey)))
        : ((await this.#deps.objects.get(file.stagingKey)) ?? (await this.#deps.objects.get(finalKey)));
      if (!bytes) {
        throw new ArchiverError(
          'STORE_FAILED',
          `Partition dt=${manifest.dt} lists ${file.name}, but it is neither at ${finalKey} nor at ${file.stagingKey}; refusing to write until it is restored`,
        );
      }
      for (const id of await readRecordIds(bytes)) ids.add(id);
      loaded.add(file.name);
    }
    return ids;
  }

  /** Writes the records of `dt` (ids in `ids`, bodies in `spill`) that are not archived yet; returns what was added. */
  async commit(dt: Day, ids: ReadonlySet<string>, spill: RecordSpill): Promise<CommitResult> {
    const { state, objects, logger } = this.#deps;
    for (let attempt = 1; attempt <= MAX_CONFLICTS; attempt++) {
      const manifest = (await state.getPartition(dt)) ?? { dt, files: [], version: 0 };
      const known = await this.knownIds(manifest);
      const fresh = new Set([...ids].filter((id) => !known.has(id)));
      if (fresh.size === 0) {
        await this.publishPending(manifest);
        return { newRecords: 0, files: 0, bytes: 0 };
      }
      const file = await this.#stage(dt, fresh, spill);
      let committed: PartitionManifest;
      try {
        committed = await state.putPartition({ ...manifest, files: [...manifest.files, file] });
      } catch (error) {
        await objects.deleteStaging(file.stagingKey).catch(() => {});
        if (ArchiverError.is(error, 'CONFLICT') && attempt < MAX_CONFLICTS) {
          logger.warn('partition changed under us; re-reading it', { dt, attempt });
          continue;
        }
        throw error;
      }
      for (const id of fresh) known.add(id);
      this.#loaded.get(dt)?.add(file.name);
      await this.publishPending(committed);
      return { newRecords: fresh.size, files: 1, bytes: file.bytes };
    }
    throw new ArchiverError('CONFLICT', `Partition dt=${dt} kept changing during commit`);
  }

  /** Moves committed-but-unpublished files of a partition under `history/` and records that. */
  async publishPending(manifest: PartitionManifest): Promise<void> {
    let current = manifest;
    for (let attempt = 1; current.files.some((f) => !f.published); attempt++) {
      for (const f of current.files.filter((x) => !x.published)) {
        await this.#deps.objects.publish(f.stagingKey, archiveKeys.data(current.dt, f.name));
      }
      try {
        current = await this.#deps.state.putPartition({
          ...current,
          files: current.files.map((f) => ({ ...f, published: true })),
        });
      } catch (error) {
        if (!ArchiverError.is(error, 'CONFLICT') || attempt >= MAX_CONFLICTS) throw error;
        current = (await this.#deps.state.getPartition(current.dt)) ?? current;
      }
    }
  }

  async #stage(dt: Day, fresh: ReadonlySet<string>, spill: RecordSpill): Promise<ManifestFile> {
    const { clock, runId, fence, tmpDir, objects } = this.#deps;
    const now = clock.now();
    const stamp = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const name = `${stamp}-${runId}-${String(++this.#seq).padStart(4, '0')}.parquet`;
    const tokenPolicy = this.#deps.tokenPolicy;
    // Streamed from the spill file: memory holds one row group, not the day.
    async function* rows(): AsyncGenerator<ArchiveRow> {
      for await (const [id, r] of spill.read()) {
        if (fresh.has(id)) yield toArchiveRow(r, { tokenPolicy, archivedAt: now });
      }
    }
    await mkdir(tmpDir, { recursive: true });
    const localPath = join(tmpDir, name);
    try {
      const written = await writeHistoryParquet(rows(), localPath, { rowGroupSize: this.#deps.rowGroupSize });
      if (written.rows !== fresh.size) {
        throw new ArchiverError(
          'INTERNAL',
          `dt=${dt}: wrote ${written.rows} rows for ${fresh.size} new records`,
        );
      }
      const stagingKey = archiveKeys.staging(runId, dt, name);
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
