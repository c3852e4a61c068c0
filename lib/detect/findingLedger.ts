/**
 * Where a finding's delivery is claimed, once per dedupe key and period. `claim` returns true for
 * exactly one caller per finding id, however many evaluations run at once: in AWS a conditional
 * DynamoDB write (`dynamoFindingLedger`), locally the same on the state folder's items (`versionedFindingLedger`), and in
 * memory for rule tests.
 */
export interface FindingLedger {
  /** True when this call took the claim (deliver the finding); false when it was taken before. */
  claim(findingId: string, dedupeKey: string, expiresAt: Date): Promise<boolean>;
}

/** A ledger in memory (yml tests, one-off evaluations that deliver nothing). */
export function memoryFindingLedger(): FindingLedger & { claimed: ReadonlySet<string> } {
  const claimed = new Set<string>();
  return {
    claimed,
    async claim(findingId) {
      if (claimed.has(findingId)) return false;
      claimed.add(findingId);
      return true;
    },
  };
}
