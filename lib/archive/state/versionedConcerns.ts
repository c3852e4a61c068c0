import type * as z from 'zod';
import { ArchiverError, type Day } from '../../foundation/index.ts';
import { archiveMetaSchema } from './archiveMeta.ts';
import { dayStateSchema } from './dayState.ts';
import { type Dataset, partitionManifestSchema } from './partitionManifest.ts';
import type { DayStateStore, ManifestStore, MetaStore } from './statePorts.ts';
import type { VersionedItem, VersionedItems } from './versionedItems.ts';

/** The keys of the state table: `META`, `DAY#<day>`, `PART#<dt>` (history) and `PART#active#<dt>`. */
export const META_PK = 'META';
export const DAY_PREFIX = 'DAY#';
export const PART_PREFIX = 'PART#';

/** `PART#<dt>` for history (the key older releases wrote), `PART#active#<dt>` for the active snapshots. */
export function partitionKey(dt: Day, dataset: Dataset = 'history'): string {
  return dataset === 'history' ? `${PART_PREFIX}${dt}` : `${PART_PREFIX}${dataset}#${dt}`;
}

/**
 * The item's entity, validated: its data (the `data` JSON, or what `read` decodes, e.g. the live state's
 * gzip bytes) plus its `version`. A stored item that cannot be decoded or does not match the schema is
 * `INTERNAL`, never returned.
 */
export function decodeItem<T>(
  item: VersionedItem,
  schema: z.ZodType<T>,
  where: string,
  read: () => unknown = () => JSON.parse(item.data),
): T {
  let data: unknown;
  try {
    data = read();
  } catch (cause) {
    throw new ArchiverError('INTERNAL', `state item '${item.pk}' ${where} holds invalid JSON`, { cause });
  }
  const parsed = schema.safeParse({ ...(data as object), version: item.version });
  if (!parsed.success) {
    throw new ArchiverError('INTERNAL', `state item '${item.pk}' ${where} is malformed`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/**
 * Manifests, day state and META, written once on the versioned-item primitive (beside the lease and the
 * live state, all joined by `stateConcerns.ts`): each entity is one item (`data` JSON and `version`),
 * every write a put conditioned on the version read, so two runs that both think they hold the lease
 * cannot both commit (the loser gets `CONFLICT`).
 */
export function versionedConcerns(items: VersionedItems): ManifestStore & DayStateStore & MetaStore {
  const get = async <T>(pk: string, schema: z.ZodType<T>): Promise<T | undefined> => {
    const item = await items.get(pk);
    return item === undefined ? undefined : decodeItem(item, schema, items.where);
  };
  const put = async <T extends { version: number }>(pk: string, entity: T): Promise<T> => {
    const { version, ...data } = entity;
    await items.put(pk, version, JSON.stringify(data));
    return { ...entity, version: version + 1 };
  };
  const list = async <T>(prefix: string, schema: z.ZodType<T>): Promise<T[]> =>
    (await items.query(prefix)).map((item) => decodeItem(item, schema, items.where));
  return {
    getMeta: () => get(META_PK, archiveMetaSchema),
    putMeta: (meta) => put(META_PK, meta),
    getDay: (day) => get(`${DAY_PREFIX}${day}`, dayStateSchema),
    getDays: async (days) =>
      (await items.getMany(days.map((day) => `${DAY_PREFIX}${day}`)))
        .map((item) => decodeItem(item, dayStateSchema, items.where))
        .sort((a, b) => a.day.localeCompare(b.day)),
    listDays: async () => (await list(DAY_PREFIX, dayStateSchema)).sort((a, b) => a.day.localeCompare(b.day)),
    putDay: (state) => put(`${DAY_PREFIX}${state.day}`, state),
    getPartition: (dt, dataset) => get(partitionKey(dt, dataset), partitionManifestSchema),
    listPartitions: async () =>
      (await list(PART_PREFIX, partitionManifestSchema)).sort(
        (a, b) => (a.dataset ?? 'history').localeCompare(b.dataset ?? 'history') || a.dt.localeCompare(b.dt),
      ),
    putPartition: (manifest) => put(partitionKey(manifest.dt, manifest.dataset), manifest),
  };
}

/** The `CONFLICT` of a conditional put that found another version than the one read. */
export function versionConflict(pk: string, version: number, cause?: unknown): ArchiverError {
  return new ArchiverError('CONFLICT', `state item '${pk}' changed since version ${version} was read`, {
    ...(cause === undefined ? {} : { cause }),
    details: { pk, expectedVersion: version },
  });
}
