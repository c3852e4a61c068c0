import * as z from 'zod';
import { archiveKeys, type ObjectStore } from '../../archive/index.ts';
import type { VerifyResult } from './verifyTypes.ts';

const count = z.number().int().nonnegative();

/** The stored result as the report reads it: `verify --json`'s shape, other members kept as they are. */
const storedVerifySchema = z.looseObject({
  ok: z.boolean(),
  checkedAt: z.string(),
  digests: count,
  lastDigestAt: z.string().nullable(),
  head: z.object({ seq: count, key: z.string(), sha256: z.string() }).nullable(),
  expectedHeads: z.array(z.object({ seq: count, sha256: z.string(), source: z.string() })),
  files: count,
  rows: count,
  records: count,
  failures: z.array(
    z.looseObject({
      kind: z.string(),
      object: z.string().optional(),
      day: z.string().optional(),
      message: z.string(),
    }),
  ),
  days: z.array(z.looseObject({ day: z.string(), pending: count })),
  pending: count,
  lostSessions: count,
});

/** Stores a verify result beside the report (the weekly verify in AWS). */
export async function storeVerify(objects: ObjectStore, result: VerifyResult): Promise<void> {
  await objects.put(archiveKeys.lastVerify, `${JSON.stringify(result)}\n`);
}

/**
 * The last stored verify result, or `undefined` when there is none, or when what is there is not one
 * (the report then says no result is stored, rather than showing figures it cannot trust).
 */
export async function readStoredVerify(objects: ObjectStore): Promise<VerifyResult | undefined> {
  const bytes = await objects.get(archiveKeys.lastVerify);
  if (bytes === undefined) return undefined;
  try {
    const parsed = storedVerifySchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? (parsed.data as unknown as VerifyResult) : undefined;
  } catch {
    return undefined;
  }
}
