import { rm } from 'node:fs/promises';
import { ArchiverError } from '../../foundation/index.ts';

/**
 * A file written in steps that is either finished whole or removed: `finish` runs the subclass's last
 * step and, if anything fails, aborts (removes the partial file) before the error leaves; `abort` is safe
 * to call more than once, and after `finish`. The Parquet writers (`ParquetDraftWriter`,
 * `HistoryParquetFile`) share this life cycle.
 */
export abstract class PartialFile<Result> {
  readonly path: string;
  #state: 'open' | 'finished' | 'aborted' = 'open';

  protected constructor(path: string) {
    this.path = path;
  }

  /** Writes what is left and closes the file; on failure the partial file is removed. */
  async finish(): Promise<Result> {
    this.assertOpen();
    try {
      const result = await this.finishFile();
      this.#state = 'finished';
      return result;
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** Closes and removes the partial file; safe to call more than once, and after `finish`. */
  async abort(): Promise<void> {
    if (this.#state === 'aborted') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'aborted';
    await this.abortFile(wasOpen);
    await rm(this.path, { force: true }).catch(() => undefined);
  }

  /** Throws `INTERNAL` unless the file is still open (a write after finish or abort is a bug). */
  protected assertOpen(): void {
    if (this.#state !== 'open') throw new ArchiverError('INTERNAL', `${this.path} is ${this.#state}`);
  }

  /** The last step of `finish`: what is buffered, the footer, closing. */
  protected abstract finishFile(): Promise<Result>;

  /** Lets go of what the file holds (`wasOpen`: it was neither finished nor aborted before). */
  protected abstract abortFile(wasOpen: boolean): Promise<void>;
}
