import { createReadStream } from 'node:fs';
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

const FLUSH_BYTES = 1 << 20;

/** JSON with `Date`s kept as `{ "$date": epochMs }`, so rows come back exactly as they went in. */
function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Date ? { $date: raw.getTime() } : value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && '$date' in value) {
    return new Date((value as { $date: number }).$date);
  }
  return value;
}

/**
 * The rows of one day walk, on local disk (JSON lines, mode 0600 in the run's 0700 folder), so memory holds
 * only their ids: a heavy day costs disk, not heap. Rows are the archive's rows, already under the token
 * policy, so a spill left by a killed run holds nothing the archive itself would not. Written once per
 * distinct id; read back in write order.
 */
export class RowSpill<Row> {
  readonly path: string;
  #buffer: string[] = [];
  #bytes = 0;
  #created = false;
  #chain: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  /** Buffers one row; flushes to disk every ~1 MiB. */
  async add(id: string, row: Row): Promise<void> {
    const line = `${JSON.stringify([id, row], replacer)}\n`;
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
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      await writeFile(this.path, '', { mode: 0o600 });
      this.#created = true;
    }
    if (this.#buffer.length === 0) return;
    const chunk = this.#buffer.join('');
    this.#buffer = [];
    this.#bytes = 0;
    await appendFile(this.path, chunk);
  }

  /** Every spilled row with its id, in the order they were added. */
  async *read(): AsyncGenerator<[string, Row]> {
    await this.flush();
    const lines = createInterface({
      input: createReadStream(this.path, 'utf8'),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) {
      if (line) yield JSON.parse(line, reviver) as [string, Row];
    }
  }

  async remove(): Promise<void> {
    this.#buffer = [];
    await rm(this.path, { force: true });
  }
}
