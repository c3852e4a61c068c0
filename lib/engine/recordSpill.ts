import { createReadStream } from 'node:fs';
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { HistoryRecord } from '../upstream/schemas.ts';

const FLUSH_BYTES = 1 << 20;

/**
 * The records of one day walk, on local disk (JSON lines), so memory holds only their ids: a heavy
 * day costs disk, not heap. Written once per distinct record; read back in write order.
 */
export class RecordSpill {
  readonly path: string;
  #buffer: string[] = [];
  #bytes = 0;
  #created = false;
  #chain: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  /** Buffers one record; flushes to disk every ~1 MiB. */
  async add(id: string, record: HistoryRecord): Promise<void> {
    const line = `${JSON.stringify([id, record])}\n`;
    this.#buffer.push(line);
    this.#bytes += line.length;
    if (this.#bytes >= FLUSH_BYTES) await this.flush();
  }

  /** Writes buffered lines; calls are serialised so concurrent page walkers never interleave writes. */
  flush(): Promise<void> {
    this.#chain = this.#chain.then(() => this.#write());
    return this.#chain;
  }

  async #write(): Promise<void> {
    if (!this.#created) {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFile(this.path, '');
      this.#created = true;
    }
    if (this.#buffer.length === 0) return;
    const chunk = this.#buffer.join('');
    this.#buffer = [];
    this.#bytes = 0;
    await appendFile(this.path, chunk);
  }

  /** Every spilled record, in the order they were added. */
  async *read(): AsyncGenerator<[string, HistoryRecord]> {
    await this.flush();
    const lines = createInterface({
      input: createReadStream(this.path, 'utf8'),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) {
      if (line) yield JSON.parse(line) as [string, HistoryRecord];
    }
  }

  async remove(): Promise<void> {
    this.#buffer = [];
    await rm(this.path, { force: true });
  }
}
