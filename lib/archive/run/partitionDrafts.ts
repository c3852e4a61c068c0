import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Clock,
  type Day,
  ensureRunFolder,
  IdSet,
  presizedFor,
  relieveHeap,
} from '../../foundation/index.ts';
import type {
  CommitResult,
  CoveredFiles,
  PartitionCommitter,
  RowFile,
  StreamingDatasetWriter,
} from '../commit/partitionCommitter.ts';
import { loopTurns } from '../walk/loopTurns.ts';

/** Rows a file holds before it is committed while the walk fetches (fewer: it waits for the walk's end). */
export const MIN_FLUSH_ROWS = 1_000;

/**
 * Rows after which a file is committed while the walk fetches, however young: rows that waited for the
 * partition's ids arrive at once, and must not make one file the cut leaves to commit.
 */
export const MAX_FLUSH_ROWS = 10_000;

/** `relieveHeap` runs every 2048 rows taken. */
const RELIEF_EVERY_MASK = 2047;

/**
 * Rows a partition keeps waiting while the ids it already holds are read back: past it, `add` makes the
 * walk wait for the read. Rows that waited are written (and committed) at once once the read ends, so
 * this bounds the work a long read leaves behind it.
 */
export const MAX_WAITING = 5_000;

interface Draft<Row> {
  dt: Day;
  /**
   * Ids the partition held when the draft opened: rows with these ids are never written again. Absent
   * while they are read back: the walk's rows wait in `waiting` meanwhile, so the read overlaps fetching.
   */
  known: IdSet | undefined;
  /** Started by `prepare`: rows wait for `known` instead of making the walk wait. */
  prepared: boolean;
  /** Rows new to the walk that arrived before `known` was read; each is checked against it once read. */
  waiting: DraftCandidate<Row>[];
  /** Settles once `known` is read and the waiting rows are written (rejects when the read failed). */
  ready: Promise<void>;
  /** Every distinct id the walk gave this partition; those not in `known` are the rows of `file`. */
  seen: IdSet;
  file: RowFile<Row> | undefined;
  /**
   * Under `flush` (files committed while the walk fetches): the ids of the rows written to `file` (rows whose
   * `add` is still queued on its creation included), at most `MAX_FLUSH_ROWS`. Without it the partition has
   * one file, whose ids are `seen` less `known`: a second set of every id (24 MiB for a million-row day, and
   * its regrowths on top) would be kept for nothing.
   */
  fileIds: IdSet | undefined;
  /** Rows waiting for `file` to be created: the file is not committed before they are in it. */
  queued: number;
  /** When `file` was opened (ms on the flush clock). */
  openedAt: number;
  /** The commits of this partition's earlier files, one after another (rejects with the first failure). */
  committing: Promise<void>;
}

export interface PartitionDraftsOptions {
  /** Private folder of the run: draft files go here (0600). */
  tmpDir: string;
  /** Unique per day walk: keeps draft files of different walks apart. */
  prefix: string;
  /**
   * Under a deadline: a partition's file is committed once it has been open `everyMs` (on `clock`) and
   * holds at least `MIN_FLUSH_ROWS` rows, or once it holds `MAX_FLUSH_ROWS`, while the walk goes on
   * fetching; the next rows go to a new file. What the cut leaves to commit is then at most what the walk
   * fetched in `everyMs` (and never more than `MAX_FLUSH_ROWS` rows), whatever the day's size, and the
   * commits made meanwhile say how long that takes: each (with `afterCommit`, which saves the walk's
   * place) is timed by `startCommit` (the run's budget), which is called back once the commit ends.
   */
  flush?: {
    everyMs: number;
    clock: Clock;
    startCommit(): () => void;
    afterCommit?: () => Promise<void>;
  };
  /**
   * A resumed walk's own earlier files (see `PartitionCommitter.knownIds`): listed files whose ids the walk
   * carries, and so drops before they reach a draft. Their ids are not read back, on one condition:
   * `holds`, which settles once the walk's earlier ids are read, is true. When they could not be read
   * (the walk offers those rows again), the files are read as any other.
   */
  covered?: { files: CoveredFiles; holds: Promise<boolean> };
}

/**
 * A row offered to the drafts before it is built: its id (the writer's `idOf` of the row) and its Hive
 * partition, and `draftRow()`, called only when the row is new to the partition (`KeyedRecord` is one).
 */
export interface DraftCandidate<Row> {
  readonly id: string;
  readonly dt: Day;
  draftRow(): Row;
}

/**
 * The files a day walk is writing, one per partition its rows fall into, encoded while the walk is still
 * fetching (so fetching and encoding overlap, and memory holds one row group per partition, not the day).
 * A draft opens with the ids its partition already holds, so rows archived by earlier runs are skipped as
 * they arrive; `commitAll` then hands each finished file to the committer, which re-checks the partition
 * (a concurrent writer's rows are filtered out by a rewrite) and commits it exactly once.
 */
export class PartitionDrafts<Row> {
  readonly #committer: PartitionCommitter;
  readonly #writer: StreamingDatasetWriter<Row>;
  readonly #opts: PartitionDraftsOptions;
  readonly #drafts = new Map<Day, Draft<Row>>();
  #seq = 0;
  #written = 0;
  #taken = 0;
  readonly #expected = new Map<Day, number>();
  #distinct = 0;
  readonly #committed: CommitResult = { newRecords: 0, files: 0, bytes: 0 };
  readonly #committedFiles: string[] = [];

  constructor(
    committer: PartitionCommitter,
    writer: StreamingDatasetWriter<Row>,
    opts: PartitionDraftsOptions,
  ) {
    this.#committer = committer;
    this.#writer = writer;
    this.#opts = opts;
  }

  /**
   * Takes one row of the walk, building it only when its partition has not seen its id and does not
   * hold it already. Returns a promise (to await) only when it had to open a partition or ended a row
   * group; otherwise the row was buffered (or skipped) synchronously.
   */
  add(candidate: DraftCandidate<Row>): undefined | Promise<void> {
    // Every few thousand rows: a bulk walk's garbage must not pile up to several times the live heap.
    if ((++this.#taken & RELIEF_EVERY_MASK) === 0) relieveHeap();
    const draft = this.#draftOf(candidate.dt, false);
    // A partition not prepared is read back before its first row is taken (the walk waits once).
    if (!draft.known && !draft.prepared) return draft.ready.then(() => this.#addTo(draft, candidate));
    return this.#addTo(draft, candidate);
  }

  /**
   * Starts reading back the ids partition `dt` holds, before its first row arrives: a walk that resumes
   * a day (whose rows the partition mostly holds) has them read while its first pages are on their way.
   */
  prepare(dt: Day): void {
    this.#draftOf(dt, true).prepared = true;
  }

  /**
   * Sizes the id set of partition `dt` for `total` rows before it opens: a million-row day then never
   * holds two tables at once while one grows. Capped, so an absurd total costs nothing.
   */
  expect(dt: Day, total: number): void {
    if (Number.isSafeInteger(total) && total > 0) this.#expected.set(dt, presizedFor(total));
  }

  /** Rows written (or buffered) so far, over every partition: the distinct rows not archived before. */
  get rows(): number {
    return this.#written;
  }

  /** Bytes held by the id sets of the partitions seen so far (16 bytes an id, at most half full). */
  get idBytes(): number {
    let n = 0;
    for (const d of this.#drafts.values()) n += d.seen.byteLength + (d.fileIds?.byteLength ?? 0);
    return n;
  }

  /** The names of the files committed so far, in the order they were listed. */
  get committedFiles(): readonly string[] {
    return this.#committedFiles;
  }

  /** Distinct rows taken so far (written or already archived). */
  get distinct(): number {
    return this.#distinct;
  }

  /**
   * Finishes every draft and commits it, oldest partition first, after the commits made while the walk
   * was fetching; returns the sum of them all.
   */
  async commitAll(): Promise<CommitResult> {
    const dts = [...this.#drafts.keys()].sort();
    for (const dt of dts) {
      const draft = this.#drafts.get(dt);
      if (!draft) continue;
      await draft.ready;
      await this.#creating.get(dt);
      this.#detach(draft);
      await draft.committing;
    }
    return { ...this.#committed };
  }

  /** Aborts every open draft file and frees the partitions' cached ids. */
  async discard(): Promise<void> {
    for (const [dt, draft] of this.#drafts) {
      await draft.ready.catch(() => undefined);
      await this.#creating.get(dt)?.catch(() => undefined);
      await draft.committing.catch(() => undefined);
      await draft.file?.abort();
      this.#committer.forget(this.#writer.dataset, dt);
    }
    this.#drafts.clear();
  }

  #draftOf(dt: Day, prepared: boolean): Draft<Row> {
    const found = this.#drafts.get(dt);
    if (found) return found;
    const draft: Draft<Row> = {
      dt,
      known: undefined,
      prepared,
      waiting: [],
      ready: Promise.resolve(),
      seen: new IdSet(this.#expected.get(dt)),
      file: undefined,
      fileIds: this.#newFileIds(),
      queued: 0,
      openedAt: 0,
      committing: Promise.resolve(),
    };
    draft.ready = this.#archivedIds(dt).then(async (known) => {
      // Rows that arrive while the waiting ones are written wait too: rows keep their order. The event loop
      // gets its turns meanwhile, as in the walk (up to `MAX_WAITING` rows are built and written here).
      const turn = loopTurns();
      while (draft.waiting.length > 0) {
        const batch = draft.waiting.splice(0);
        for (const candidate of batch) {
          const wait = turn(this.#write(draft, known, candidate));
          if (wait) await wait;
        }
      }
      draft.known = known;
    });
    // A failed read surfaces at the next `add` that waits for it, and at `commitAll`.
    draft.ready.catch(() => undefined);
    this.#drafts.set(dt, draft);
    return draft;
  }

  /** The partition's archived ids a row offered here may be in (not those of the walk's own files). */
  async #archivedIds(dt: Day): Promise<IdSet> {
    const covered = this.#opts.covered;
    if (!covered) return this.#committer.archivedIds(this.#writer, dt);
    // Both reads start at once: the partition's other files are read beside the walk's earlier ids.
    const [known, holds] = await Promise.all([
      this.#committer.archivedIds(this.#writer, dt, covered.files),
      covered.holds,
    ]);
    return holds ? known : this.#committer.archivedIds(this.#writer, dt);
  }

  /** The files a commit need not read (the walk's own earlier ones), once it is known they may be skipped. */
  async #coveredFiles(): Promise<CoveredFiles | undefined> {
    const covered = this.#opts.covered;
    return covered && (await covered.holds) ? covered.files : undefined;
  }

  #addTo(draft: Draft<Row>, candidate: DraftCandidate<Row>): undefined | Promise<void> {
    if (!draft.seen.add(candidate.id)) return undefined;
    this.#distinct++;
    if (draft.known) return this.#write(draft, draft.known, candidate);
    draft.waiting.push(candidate);
    return draft.waiting.length >= MAX_WAITING ? draft.ready : undefined;
  }

  /** Writes a row new to the walk unless the partition holds it already. */
  #write(draft: Draft<Row>, known: IdSet, candidate: DraftCandidate<Row>): undefined | Promise<void> {
    if (known.has(candidate.id)) return undefined;
    this.#written++;
    draft.fileIds?.add(candidate.id);
    const row = candidate.draftRow();
    if (draft.file) {
      const pending = draft.file.add(row);
      if (!this.#due(draft)) return pending;
      // One file committing at a time a partition: the walk waits for the one before (back-pressure).
      const before = draft.committing;
      this.#detach(draft);
      return Promise.all([pending, before.catch(() => undefined)]).then(() => undefined);
    }
    draft.queued++;
    return this.#createFile(draft).then((file) => {
      draft.queued--;
      return file.add(row);
    });
  }

  /** A new file's id set: only files committed while the walk fetches keep one (see `Draft.fileIds`). */
  #newFileIds(): IdSet | undefined {
    return this.#opts.flush ? new IdSet() : undefined;
  }

  /** Whether the partition's open file is to be committed now (see `flush`). */
  #due(draft: Draft<Row>): boolean {
    const flush = this.#opts.flush;
    const written = draft.fileIds?.size ?? 0;
    if (!flush || draft.queued > 0 || written < MIN_FLUSH_ROWS) return false;
    if (written >= MAX_FLUSH_ROWS) return true;
    return flush.clock.now().getTime() - draft.openedAt >= flush.everyMs;
  }

  /**
   * Takes the partition's open file out of the draft and queues its commit behind the partition's earlier
   * ones (the walk does not wait for it); the next row opens a new file.
   */
  #detach(draft: Draft<Row>): void {
    const file = draft.file;
    if (!file) return;
    // Without `flush` this is the partition's one file, detached by `commitAll` once its rows are in.
    const ids = draft.fileIds ?? draft.seen.without(draft.known ?? new IdSet());
    draft.file = undefined;
    draft.fileIds = this.#newFileIds();
    this.#creating.delete(draft.dt);
    draft.committing = draft.committing.then(
      () => this.#commitFile(draft.dt, file, ids),
      async (error: unknown) => {
        await file.abort();
        throw error;
      },
    );
    // A failed commit surfaces at `commitAll`.
    draft.committing.catch(() => undefined);
  }

  async #commitFile(dt: Day, file: RowFile<Row>, ids: IdSet): Promise<void> {
    const done = this.#opts.flush?.startCommit();
    try {
      const written = await file.finish();
      const c = await this.#committer.commitDraft(
        this.#writer,
        dt,
        { path: file.path, ids, rows: written.rows },
        await this.#coveredFiles(),
      );
      if (c.name !== undefined) this.#committedFiles.push(c.name);
      this.#committed.newRecords += c.newRecords;
      this.#committed.files += c.files;
      this.#committed.bytes += c.bytes;
      await this.#opts.flush?.afterCommit?.();
    } finally {
      await rm(file.path, { force: true });
      done?.();
    }
  }

  #creating = new Map<Day, Promise<RowFile<Row>>>();

  #createFile(draft: Draft<Row>): Promise<RowFile<Row>> {
    let creating = this.#creating.get(draft.dt);
    if (!creating) {
      const path = join(this.#opts.tmpDir, `${this.#opts.prefix}-${++this.#seq}-${draft.dt}.parquet`);
      creating = ensureRunFolder(this.#opts.tmpDir)
        .then(() => this.#writer.create(path))
        .then((file) => {
          draft.file = file;
          draft.openedAt = this.#opts.flush?.clock.now().getTime() ?? 0;
          return file;
        });
      this.#creating.set(draft.dt, creating);
    }
    return creating;
  }
}
