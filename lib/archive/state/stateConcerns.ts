import { leaseConcern } from './leaseConcern.ts';
import { liveStateConcern } from './liveStateConcern.ts';
import type { StateStore } from './statePorts.ts';
import { versionedConcerns } from './versionedConcerns.ts';
import type { VersionedItems } from './versionedItems.ts';

/**
 * The whole state store on one versioned-item primitive: manifests, day state and META
 * (`versionedConcerns`), the lease (`leaseConcern`) and the live state (`liveStateConcern`). A backend
 * implements only the primitive; the concerns, their conditions and their settlements are written here once.
 */
export function stateConcerns(items: VersionedItems): StateStore {
  return { ...versionedConcerns(items), ...leaseConcern(items), ...liveStateConcern(items) };
}
