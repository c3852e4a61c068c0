import * as z from 'zod';

/**
 * The single-writer lease as stored: `fence` grows by one on every acquisition. (No `version` in the
 * entity: the item's version only orders its writes.)
 */
export const leaseSchema = z.object({
  owner: z.string(),
  fence: z.number().int().nonnegative(),
  expiresAt: z.number(),
});

export type Lease = z.infer<typeof leaseSchema>;
