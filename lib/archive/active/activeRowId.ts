import { canonicalJson } from '../records/canonicalJson.ts';
import { sha256Hex } from '../records/sha256Hex.ts';
import type { ActiveEvent } from './activeRow.ts';

/**
 * The dedupe key of an active row: 128 bits (32 hex) of SHA-256 over (id, event, seq, content hash).
 * `observed_at` is left out on purpose, so a run that crashed after its commit re-derives the very same
 * ids from the same stored state and the commit drops them. `seq` (rows written for this id so far,
 * kept in the state) tells apart a session that flips A→B→A→B, whose second `changed` to B would
 * otherwise collide with the first.
 */
export function activeRowId(id: string, event: ActiveEvent, seq: number, hash: string): string {
  return sha256Hex(canonicalJson({ id, event, seq, hash })).slice(0, 32);
}
