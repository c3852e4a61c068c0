import type * as z from 'zod';
import { ArchiverError } from '../errors/archiverError.ts';
import type { ObjectStore } from '../store/objectStore.ts';

/**
 * A JSON object a verify job wrote, parsed with `schema`; `undefined` when it is absent. One that does not
 * parse is an error (`INTERNAL`): the job's own objects are written by its steps alone.
 */
export async function readJobJson<S extends z.ZodType>(
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
    throw new ArchiverError('INTERNAL', `${key} is not what a verify job writes`, { cause: parsed.error });
  return parsed.data;
}
