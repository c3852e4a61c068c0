import { ArchiverError, type Clock, type Day, isDay, type Logger } from '../../foundation/index.ts';
import { archiveKeys } from '../commit/archiveKeys.ts';
import { emptyManifest } from '../commit/partitionCommitter.ts';
import { describeDataFile } from '../digest/describeDataFile.ts';
import type { DigestFile } from '../digest/digestSchema.ts';
import { readDigestChain } from '../digest/readDigestChain.ts';
import type { Dataset, ManifestFile, PartitionManifest } from '../state/partitionManifest.ts';
import type { ManifestStore } from '../state/statePorts.ts';
import { objectSource } from '../store/byteSource.ts';
import type { ObjectStore } from '../store/objectStore.ts';

export interface RebuildDeps {
  objects: ObjectStore;
  state: ManifestStore;
  logger: Logger;
  /** Commit time for files no digest lists and whose name carries no time stamp. */
  clock?: Clock;
}

export interface RebuiltPartition {
  dt: string;
  dataset: Dataset;
  /** File names added to the partition's manifest. */
  files: string[];
  rows: number;
}

export interface RebuildResult {
  partitions: RebuiltPartition[];
  files: number;
  rows: number;
  /** Of the rebuilt files, how many no digest listed yet (read from the file footer instead). */
  undigested: number;
  /**
   * Files left out: no digest lists them and their partition's manifest exists but does not name them.
   * The archiver commits every file before publishing it, so these were never written by it.
   */
  foreign: string[];
}

const MAX_CONFLICTS = 5;

/**
 * A rebuild bounded to what was written since the last reconciliation: the partitions from `from` (every
 * file written since lands there), their manifests read one by one, and the files the chain lists since
 * then (`digested`) instead of the whole chain. Its cost follows the window, not the archive's age.
 */
export interface RebuildScope {
  from: Day;
  today: Day;
  digested: ReadonlyMap<string, { file: DigestFile; createdAt: string }>;
}

/**
 * State is a cache of the archive: lists every published file under `history/` and `active/` and adds to the
 * partition manifests those they lack (as published, with rows and bytes from the digests, or from
 * the file itself when no digest lists it yet and the state has no manifest for its partition, i.e. the
 * state was lost). A file neither digested nor named by its partition's existing manifest is left out and
 * reported (`foreign`): files are committed before they are published, so the archiver never wrote it. Dedupe reads ids from the files the manifests list,
 * so after a rebuild no run writes a record the archive already holds. Idempotent; never removes.
 */
export async function rebuildStateFromArchive(
  deps: RebuildDeps,
  scope?: RebuildScope,
): Promise<RebuildResult> {
  const result: RebuildResult = { partitions: [], files: 0, rows: 0, undigested: 0, foreign: [] };
  const all = scope ? [] : await deps.state.listPartitions();
  let digested: ReadonlyMap<string, { file: DigestFile; createdAt: string }> | undefined = scope?.digested;
  for (const dataset of DATASETS) {
    const byDt = new Map<string, { name: string; key: string; size: number }[]>();
    const pattern = new RegExp(`^${dataset}/dt=([^/]+)/([^/]+)$`);
    const prefixes = scope
      ? monthsFrom(scope.from, scope.today).map((m) => `${archiveKeys.datasetPrefix(dataset)}dt=${m}-`)
      : [archiveKeys.datasetPrefix(dataset)];
    for (const prefix of prefixes) {
      for await (const o of deps.objects.list(prefix)) {
        const m = pattern.exec(o.key);
        if (!m || !isDay(m[1] as string) || (scope && (m[1] as string) < scope.from)) continue;
        const list = byDt.get(m[1] as string) ?? [];
        list.push({ name: m[2] as string, key: o.key, size: o.size });
        byDt.set(m[1] as string, list);
      }
    }
    // One scan of the state (bounded: the listed partitions' manifests); the digests are read only when
    // something is actually lacking.
    const manifests = new Map(
      all.filter((m) => (m.dataset ?? 'history') === dataset).map((m) => [m.dt, m] as const),
    );
    if (scope) {
      for (const dt of byDt.keys()) {
        const m = await deps.state.getPartition(dt, dataset);
        if (m) manifests.set(dt, m);
      }
    }
    const lackingAny = [...byDt].some(([dt, found]) => {
      const names = new Set(manifests.get(dt)?.files.map((f) => f.name));
      return found.some((f) => !names.has(f.name));
    });
    if (!lackingAny) continue;
    digested ??= await digestedFiles(deps.objects);
    await rebuildDataset(deps, dataset, byDt, manifests, digested, result);
  }
  if (result.foreign.length > 0) {
    deps.logger.error(
      'data files the archiver never committed (no digest, not in their manifest): left out',
      {
        files: result.foreign,
      },
    );
  }
  if (result.files > 0) {
    deps.logger.warn('state rebuilt from the archive', {
      partitions: result.partitions.length,
      files: result.files,
      rows: result.rows,
    });
  }
  return result;
}

const DATASETS: readonly Dataset[] = ['history', 'active', 'findings'];

async function digestedFiles(
  objects: ObjectStore,
): Promise<Map<string, { file: DigestFile; createdAt: string }>> {
  const digested = new Map<string, { file: DigestFile; createdAt: string }>();
  for (const e of (await readDigestChain(objects)).entries) {
    for (const file of e.digest?.files ?? [])
      digested.set(file.key, { file, createdAt: e.digest?.createdAt ?? '' });
  }
  return digested;
}

async function rebuildDataset(
  deps: RebuildDeps,
  dataset: Dataset,
  byDt: Map<string, { name: string; key: string; size: number }[]>,
  manifests: Map<string, PartitionManifest>,
  digested: ReadonlyMap<string, { file: DigestFile; createdAt: string }>,
  result: RebuildResult,
): Promise<void> {
  const { objects, state, logger } = deps;
  for (const [dt, found] of [...byDt].sort(([a], [b]) => (a < b ? -1 : 1))) {
    let current = manifests.get(dt);
    const known = new Set(current?.files.map((f) => f.name));
    const lacking = found.filter((f) => !known.has(f.name));
    if (lacking.length === 0) continue;
    const added: ManifestFile[] = [];
    for (const f of lacking) {
      let entry = digested.get(f.key);
      if (!entry && current !== undefined) {
        // Re-read: a writer without the lease (the snapshot function) may have committed it since.
        const now = await state.getPartition(dt, dataset);
        if (now?.files.some((x) => x.name === f.name)) continue;
        result.foreign.push(f.key);
        continue;
      }
      if (!entry) {
        entry = { file: await describeDataFile(f.key, objectSource(objects, f.key, f.size)), createdAt: '' };
        result.undigested++;
      }
      if (entry.file.rows === null) {
        logger.warn('not rebuilding an unreadable file into the state', { key: f.key });
        continue;
      }
      added.push(manifestFile(dt, f.name, entry.file, entry.createdAt, deps.clock));
    }
    for (let attempt = 1; ; attempt++) {
      const base: PartitionManifest = current ?? emptyManifest(dataset, dt);
      const names = new Set(base.files.map((x) => x.name));
      const fresh = added.filter((x) => !names.has(x.name));
      if (fresh.length === 0) break;
      try {
        await state.putPartition({ ...base, files: [...base.files, ...fresh] });
        result.partitions.push({ dt, dataset, files: fresh.map((x) => x.name), rows: sum(fresh) });
        result.files += fresh.length;
        result.rows += sum(fresh);
        break;
      } catch (error) {
        if (!ArchiverError.is(error, 'CONFLICT') || attempt >= MAX_CONFLICTS) throw error;
        current = await state.getPartition(dt, dataset);
      }
    }
  }
}

/** Archive file names are `<yyyymmddThhmmssZ>-<runId>-<seq>.parquet`; anything else is still accepted. */
function manifestFile(
  dt: string,
  name: string,
  file: DigestFile,
  createdAt: string,
  clock?: Clock,
): ManifestFile {
  const m = /^(\d{8}T\d{6}Z)-([^-]+)-\d+\.parquet$/.exec(name);
  const runId = m?.[2] ?? 'rebuilt';
  const stamp = m?.[1];
  const committedAt = stamp
    ? `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}.000Z`
    : createdAt || (clock ?? { now: () => new Date(0) }).now().toISOString();
  return {
    name,
    stagingKey: archiveKeys.staging(runId, dt, name),
    rows: file.rows ?? 0,
    bytes: file.bytes,
    runId,
    fence: 0,
    committedAt,
    published: true,
  };
}

/** `YYYY-MM` of every month from `from`'s to `today`'s: listing prefixes that cover the days between. */
function monthsFrom(from: Day, today: Day): string[] {
  const months: string[] = [];
  for (let m = from.slice(0, 7); m <= today.slice(0, 7); ) {
    months.push(m);
    const [y, mo] = m.split('-').map(Number) as [number, number];
    m = mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`;
  }
  return months;
}

function sum(files: ManifestFile[]): number {
  return files.reduce((a, f) => a + f.rows, 0);
}
