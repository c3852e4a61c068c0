import { archiveKeys } from '../commit/archiveKeys.ts';

/**
 * Key layout of the digest chain. A digest's key is a function of its position alone
 * (`digests/0000000042.json`), so two writers racing for the same position collide on one write-once key
 * and the loser re-reads and retries: the chain can never fork. Keys sort in chain (= time) order.
 */
export const digestKeys = {
  prefix: archiveKeys.digestsPrefix,
  publicKeyPem: `${archiveKeys.digestsPrefix}public-key.pem`,
  publicKeyInfo: `${archiveKeys.digestsPrefix}public-key.json`,
  /** Fingerprints of the keys the archive is written with (`lib/archive/keys/checkArchiveKeys.ts`). */
  keyCheck: `${archiveKeys.digestsPrefix}key-check.json`,
  digest: (seq: number) => `${archiveKeys.digestsPrefix}${String(seq).padStart(10, '0')}.json`,
  /** Position of a digest key, or undefined for any other key under `digests/`. */
  seqOf(key: string): number | undefined {
    const m = /^digests\/(\d{10})\.json$/.exec(key);
    return m ? Number(m[1]) : undefined;
  },
  /** Prefixes of the data sets every digest accounts for. */
  dataPrefixes: [archiveKeys.historyPrefix, archiveKeys.activePrefix, archiveKeys.findingsPrefix] as const,
  /** Every prefix a digest lists files of: the data sets, and the quarantined records (JSON, no rows). */
  listedPrefixes: [
    archiveKeys.historyPrefix,
    archiveKeys.activePrefix,
    archiveKeys.findingsPrefix,
    archiveKeys.quarantinePrefix,
  ] as const,
  /**
   * Prefixes whose objects are published once and never replaced: every prefix the chain covers, and
   * the chain itself. The bucket policy (infra) is built from this list, so a data set the digests
   * start to cover is write-once by the same change.
   */
  writeOncePrefixes: [
    archiveKeys.historyPrefix,
    archiveKeys.activePrefix,
    archiveKeys.findingsPrefix,
    archiveKeys.quarantinePrefix,
    archiveKeys.digestsPrefix,
  ] as const,
};
