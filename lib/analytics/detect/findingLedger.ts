import type { Finding } from './finding.ts';

/** A finding as JSON (times ISO 8601): what a ledger entry holds. */
export type FindingJson = Omit<Finding, 'first_seen' | 'last_seen' | 'detected_at' | 'updated_at'> & {
  first_seen: string;
  last_seen: string;
  detected_at: string;
  updated_at: string;
};

/** An incident of the key that a later one replaced, kept while a lookback can still see it. */
export interface IncidentSpan {
  finding_id: string;
  first_seen: string;
  last_seen: string;
}

/** One dedupe key's ledger entry: its current incident, its delivery state, earlier incidents. */
export interface LedgerEntry {
  schema: 1;
  finding: FindingJson;
  /** The highest revision delivered (-1: none, so the first delivery is the `new` alert). */
  delivered_revision: number;
  /** `new` alert sent (SNS): once per incident. */
  alerted: boolean;
  lease: { owner: string; until: string } | null;
  closed: IncidentSpan[];
  /** Id of the write that stored this entry (a lost response, retried, recognises its own write). */
  write_id: string;
}

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
