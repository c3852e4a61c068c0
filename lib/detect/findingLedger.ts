import type { LedgerEntry } from './incidentLedger.ts';

/** A ledger entry as stored, with the version its next conditional write must name. */
export interface StoredEntry {
  version: number;
  entry: LedgerEntry;
}

/**
 * Where incidents are claimed and updated: one entry per dedupe key, written only when the stored
 * version is still the one read, so of two evaluations at once exactly one write wins and the other
 * reads again. In AWS and locally it is the versioned-item primitive (`versionedFindingLedger`: the
 * state table, or the state folder); in memory for rule tests.
 */
export interface FindingLedger {
  /** Who writes (an evaluation's id): a write it finds already done under its name counts as its own. */
  readonly owner: string;
  read(key: string): Promise<StoredEntry | undefined>;
  /** Stores `entry` if the stored version is still `version` (0: absent); false when it was not. */
  write(key: string, version: number, entry: LedgerEntry): Promise<boolean>;
  /** The keys whose delivery is not yet done (the outbox): read and changed the same way. */
  readOutbox(): Promise<{ version: number; keys: string[] }>;
  writeOutbox(version: number, keys: readonly string[]): Promise<boolean>;
}

/** A ledger in memory (yml tests, the harness, one-off evaluations); `entries` shared by every owner. */
export function memoryFindingLedger(
  owner = 'memory',
  shared: Map<string, { version: number; data: string }> = new Map(),
): FindingLedger & { entries: Map<string, { version: number; data: string }> } {
  const put = (key: string, version: number, data: string): boolean => {
    if ((shared.get(key)?.version ?? 0) !== version) return false;
    shared.set(key, { version: version + 1, data });
    return true;
  };
  return {
    owner,
    entries: shared,
    async read(key) {
      const held = shared.get(`E#${key}`);
      return held && { version: held.version, entry: JSON.parse(held.data) as LedgerEntry };
    },
    async write(key, version, entry) {
      return put(`E#${key}`, version, JSON.stringify(entry));
    },
    async readOutbox() {
      const held = shared.get('OUTBOX');
      return { version: held?.version ?? 0, keys: held ? (JSON.parse(held.data) as string[]) : [] };
    },
    async writeOutbox(version, keys) {
      return put('OUTBOX', version, JSON.stringify(keys));
    },
  };
}
