import type { Day } from '../../foundation/index.ts';
import { archiveKeys } from '../commit/archiveKeys.ts';
import { pendingDigest } from '../digest/pendingDigest.ts';
import type { TokenPolicy } from '../records/archiveRow.ts';
import { redactTokens } from '../records/redactTokens.ts';
import type { RejectedRecord } from '../records/schemas.ts';
import type { StateStore } from '../state/statePorts.ts';
import type { ObjectStore } from '../store/objectStore.ts';

/** The token policy and key that quarantined raw items are redacted with (the run's own). */
export interface QuarantineRedaction {
  tokenPolicy: TokenPolicy;
  tokenKey: Uint8Array;
}

/**
 * Keeps every record that failed validation under `quarantine/day=<day>/<raw id>.json`, with the
 * reason. The key is the keyed `rawRecordId`, so a record seen again is not written twice and a file
 * name is never an unkeyed hash of a token. The raw item is stored through `redactTokens` under the
 * run's token policy: token-bearing fields (`token_value`, `virtual_token_value`, and any name matching
 * token/secret/password/api key/authorization/credential at any depth) are HMACed (`hash`) or removed
 * (`drop`), exactly as in `extra_json`.
 */
export async function quarantineRejected(
  objects: ObjectStore,
  day: Day,
  rejected: ReadonlyMap<string, RejectedRecord>,
  now: Date,
  redaction: QuarantineRedaction,
  state?: Pick<StateStore, 'getMeta' | 'putMeta'>,
): Promise<number> {
  let written = 0;
  const fresh: [string, RejectedRecord][] = [];
  for (const [id, r] of rejected) {
    const key = archiveKeys.quarantine(day, id);
    if (!(await objects.head(key))) fresh.push([key, r]);
  }
  // Noted for the next digest before they are written (see `pendingDigest`).
  if (state)
    await pendingDigest.note(
      state,
      fresh.map(([key]) => ({ key, at: now.toISOString() })),
    );
  for (const [key, r] of fresh) {
    const raw = redactTokens(r.raw, redaction.tokenPolicy, redaction.tokenKey);
    // Write-once (the bucket policy refuses anything else): digests list quarantined records too.
    const put = await objects.putIfAbsent(
      key,
      `${JSON.stringify({ day, reason: r.reason, quarantinedAt: now.toISOString(), raw })}\n`,
    );
    if (put) written++;
  }
  return written;
}
