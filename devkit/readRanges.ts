/**
 * The byte ranges read of each key: what a counting store needs to tell "every byte of this file was
 * read" from "this file was touched" (a footer, one range of many) or "read twice".
 */
export class ReadRanges {
  readonly #ranges = new Map<string, [number, number][]>();

  /** Records that `length` bytes of `key` from `start` were read. */
  add(key: string, start: number, length: number): void {
    if (length <= 0) return;
    const list = this.#ranges.get(key) ?? [];
    list.push([start, start + length]);
    this.#ranges.set(key, list);
  }

  /** The keys read at all. */
  keys(): string[] {
    return [...this.#ranges.keys()];
  }

  /** Bytes read of `key`, each time counted (a byte read twice counts two). */
  bytes(key: string): number {
    return (this.#ranges.get(key) ?? []).reduce((n, [s, e]) => n + e - s, 0);
  }

  /** Distinct bytes of `key` read (a byte read twice counts one). */
  covered(key: string): number {
    const sorted = [...(this.#ranges.get(key) ?? [])].sort((a, b) => a[0] - b[0]);
    let n = 0;
    let reach = 0;
    for (const [s, e] of sorted) {
      const from = Math.max(s, reach);
      if (e > from) n += e - from;
      reach = Math.max(reach, e);
    }
    return n;
  }

  clear(): void {
    this.#ranges.clear();
  }
}
