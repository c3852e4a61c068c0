import * as z from 'zod';
import { isDay } from '../../foundation/index.ts';

/**
 * The atoms of the state items' schemas. State is read back by a later run, possibly of another release,
 * so every item is validated like any other boundary, and each item's TypeScript type is its schema's
 * (`z.infer`): one declaration per stored shape.
 */

/**
 * An object of a stored item: fields a newer release added are kept when it is parsed (a loose object), so
 * an older release writing the item back does not drop them. Its type lists only the declared fields.
 */
export function storedObject<S extends z.ZodRawShape>(shape: S): z.ZodObject<S> {
  return z.looseObject(shape) as unknown as z.ZodObject<S>;
}

/** A `YYYY-MM-DD` day. */
export const storedDay = z.string().refine(isDay, { message: 'not a YYYY-MM-DD day' });

/** Optimistic concurrency: incremented by every write. 0 = never stored. */
export const itemVersion = z.number().int().nonnegative();

/** A lower-case hex SHA-256. */
export const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
