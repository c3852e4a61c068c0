import { type ChainEntry, type DigestFile, type ObjectStore, readChainRange } from '../../archive/index.ts';
import { ArchiverError } from '../../foundation/index.ts';
import { hourOf } from './securityLakeLayout.ts';

/**
 * One hour of the archive's write log: the consecutive digests from `firstSeq` to `lastSeq` whose
 * `createdAt` falls in `hour`, and the files they list (each data file is listed by exactly one digest).
 * The chain is write-once, so an archive hour is the same for every reader.
 */
export interface ArchiveHour {
  hour: Date;
  firstSeq: number;
  lastSeq: number;
  files: DigestFile[];
}

const BATCH = 16;

/**
 * Reads the digest chain forward by its keys (no listing), each digest once per reader, and cuts it into
 * archive hours. The cost follows the digests read, not the archive's age.
 */
export class ArchiveHours {
  readonly #objects: ObjectStore;
  readonly #read = new Map<number, ChainEntry>();
  /** The first position found absent (the chain's end when this reader looked). */
  #end = Number.POSITIVE_INFINITY;

  constructor(objects: ObjectStore) {
    this.#objects = objects;
  }

  /** The digest at `seq`, or undefined past the chain's end. */
  async #entry(seq: number): Promise<ChainEntry | undefined> {
    if (seq >= this.#end) return undefined;
    if (!this.#read.has(seq)) {
      const read = await readChainRange(this.#objects, seq, seq + BATCH - 1);
      for (const e of read) this.#read.set(e.seq, e);
      if (read.length < BATCH) this.#end = seq + read.length;
    }
    const entry = this.#read.get(seq);
    if (entry !== undefined && entry.digest === undefined)
      throw new ArchiverError('SCHEMA_MISMATCH', `${entry.key} is not a readable digest: ${entry.error}`);
    return entry;
  }

  /**
   * The archive hour that starts at digest `from`, once it is complete (a later digest of another hour
   * exists); undefined while it is still being written or when `from` is past the chain's end.
   */
  async startingAt(from: number): Promise<ArchiveHour | undefined> {
    const first = await this.#entry(from);
    if (first?.digest === undefined) return undefined;
    const hour = hourOf(new Date(first.digest.createdAt));
    const files = [...first.digest.files];
    for (let seq = from + 1; ; seq++) {
      const next = await this.#entry(seq);
      if (next?.digest === undefined) return undefined;
      if (hourOf(new Date(next.digest.createdAt)).getTime() !== hour.getTime())
        return { hour, firstSeq: from, lastSeq: seq - 1, files };
      files.push(...next.digest.files);
    }
  }
}
