import type * as z from 'zod';
import { ArchiverError, mapLimit } from '../../foundation/index.ts';
import type { ObjectStore } from './objectStore.ts';

/** Item outcomes read at once by a finish step. */
const OUTCOME_READ_CONCURRENCY = 16;

/**
 * The skeleton both Distributed Map orchestrations share (the fan-out of a run, the full verify job): a plan
 * step writes the items (one JSON array, which the map's ItemReader reads); each item step stores its
 * outcome under the job (a map's own results go to S3 where the finish step would not look); the finish
 * step reads every item's outcome and stores one result, which a retried finish returns as it is.
 * These are the reads and writes of that skeleton; each orchestration keeps its own keys and its own
 * rule for an item with no outcome (the fan-out fails that item's day and goes on; the verify job is not
 * finished until every item is checked).
 */
export const mapJobObjects = {
  /**
   * A JSON object the job wrote, parsed with `schema`; `undefined` when it is absent. One that does not
   * parse is an error (`INTERNAL`): a job's own objects are written by its steps alone.
   */
  async read<S extends z.ZodType>(
    objects: ObjectStore,
    key: string,
    schema: S,
  ): Promise<z.infer<S> | undefined> {
    const bytes = await objects.get(key);
    if (bytes === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(bytes));
    } catch (cause) {
      throw new ArchiverError('INTERNAL', `${key} is not JSON`, { cause });
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new ArchiverError('INTERNAL', `${key} is not what its job writes`, { cause: parsed.error });
    return parsed.data;
  },

  /** Writes one of the job's objects as JSON. */
  async write(objects: ObjectStore, key: string, value: unknown): Promise<void> {
    await objects.put(key, `${JSON.stringify(value)}\n`);
  },

  /** The job's items, as its plan step wrote them (none when the file is absent). */
  async items<S extends z.ZodType>(objects: ObjectStore, key: string, item: S): Promise<z.infer<S>[]> {
    const items = await mapJobObjects.read(objects, key, (item as z.ZodType).array());
    return (items ?? []) as z.infer<S>[];
  },

  /**
   * Each item's stored outcome, in the items' order: `undefined` for an item whose step left none (killed,
   * timed out, failed before storing), or whose outcome does not parse when `unreadable` is `missing`.
   */
  async outcomes<I, S extends z.ZodType>(
    objects: ObjectStore,
    items: readonly I[],
    keyOf: (item: I) => string,
    schema: S,
    unreadable: 'error' | 'missing' = 'error',
  ): Promise<(z.infer<S> | undefined)[]> {
    return mapLimit([...items], OUTCOME_READ_CONCURRENCY, async (item) => {
      try {
        return await mapJobObjects.read(objects, keyOf(item), schema);
      } catch (error) {
        if (unreadable === 'missing' && ArchiverError.is(error, 'INTERNAL')) return undefined;
        throw error;
      }
    });
  },
};
