/** What a failed check is about; each failure names the object (or day) it concerns. */
export type VerifyFailureKind =
  | 'public-key'
  | 'digest'
  | 'chain'
  | 'truncated'
  | 'signature'
  | 'missing-file'
  | 'unlisted'
  | 'hash'
  | 'rows'
  | 'duplicate'
  | 'missing-records';

export interface VerifyFailure {
  kind: VerifyFailureKind;
  /** The object key the failure is about, when it is about an object. */
  object?: string;
  /** The day the failure is about, when it is about an upstream day. */
  day?: string;
  message: string;
}

/** One window day compared with the API. */
export interface VerifyDay {
  day: string;
  /** Distinct valid records the API returned now. */
  upstream: number;
  /** Of those, how many the archive holds. */
  archived: number;
  /** Absent, but ended after the day's last scan (or the day was never scanned): not a failure. */
  pending: number;
  /** Absent although they ended before the day's last complete scan: a failure. */
  missing: number;
  /** Latest complete scan of the day recorded in the digests. */
  lastScanAt: string | null;
}

export interface VerifyResult {
  ok: boolean;
  checkedAt: string;
  digests: number;
  /**
   * When the newest digest was written. The chain cannot show that its newest digests were removed;
   * a last digest older than the run schedule says so (every run writes one, even when it adds nothing).
   */
  lastDigestAt: string | null;
  /** The chain's newest digest (`seq`, SHA-256 of its bytes): what an auditor notes to pass as `--expect-head` next time. */
  head: { seq: number; key: string; sha256: string } | null;
  /** The recorded heads the chain was compared with (state, auditor); a shorter chain is `truncated`. */
  expectedHeads: { seq: number; sha256: string; source: string }[];
  /** Set when only what was written from this day on was checked (`--since`). */
  since?: string;
  files: number;
  rows: number;
  /** Distinct record ids across `history/`. */
  records: number;
  failures: VerifyFailure[];
  /** Per-day upstream comparison; empty without an API. */
  days: VerifyDay[];
  /** Total pending records across `days`. */
  pending: number;
  /**
   * Sessions observed active that never appeared in history although they ended inside the window (the
   * upstream-loss detector, as the `tunnel_sessions_lost` view): reported, not an archive failure.
   */
  lostSessions: number;
  /**
   * Objects no digest lists yet, written after the newest digest: published and awaiting the next run's
   * digest (the snapshots' files wait for the next archive run's). Not failures; the next check judges them.
   */
  awaitingDigest?: string[];
}
