import type { FileHandle } from 'node:fs/promises';
import { ByteWriter } from 'hyparquet-writer';

/**
 * A hyparquet-writer `Writer` that appends to an open file. The library calls `flush()` after each row
 * group and awaits it before encoding the next, so only one encoded row group is ever buffered and the
 * event loop is never blocked by synchronous file writes (unlike the library's own `fileWriter`).
 */
export class FileSinkWriter extends ByteWriter {
  readonly #handle: FileHandle;
  #position = 0;

  constructor(handle: FileHandle) {
    super(1 << 20);
    this.#handle = handle;
  }

  flush(): Promise<void> {
    return this.#drain();
  }

  override finish(): Promise<void> {
    return this.#drain();
  }

  async #drain(): Promise<void> {
    let done = 0;
    while (done < this.index) {
      const { bytesWritten } = await this.#handle.write(
        new Uint8Array(this.buffer, done, this.index - done),
        0,
        this.index - done,
        this.#position,
      );
      done += bytesWritten;
      this.#position += bytesWritten;
    }
    this.index = 0;
  }
}
