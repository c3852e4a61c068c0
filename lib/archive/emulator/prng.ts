import { mix32 } from '../../foundation/index.ts';
/**
 * Small deterministic random source for the emulator. `Math.random` is never used, so the same seed
 * always yields the same data, fault schedule and shuffles.
 */

/** Derives a 32-bit seed from any mix of strings and numbers (FNV-1a, then a murmur3 finalizer). */
export function seedFrom(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  const text = parts.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/** mulberry32: fast, 32-bit state, good enough for test data (not for cryptography). */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The whole generator state: `new Rng(rng.state)` replays the same stream from here. */
  get state(): number {
    return this.#state;
  }

  /** Advances the stream by `n` draws without computing them (the state only grows by a constant). */
  skip(n: number): void {
    this.#state = (this.#state + ((n * 0x6d2b79f5) % 4_294_967_296)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`; always consumes one draw so streams stay aligned. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** Weighted pick from `[item, weight]` pairs. */
  weighted<T>(table: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const entry of table) total += entry[1];
    let x = this.next() * total;
    for (const [item, w] of table) {
      x -= w;
      if (x < 0) return item;
    }
    return table[table.length - 1]![0];
  }

  /** `n` characters drawn from `alphabet`. */
  chars(alphabet: string, n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  /** Fisher-Yates shuffle, in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const tmp = items[i]!;
      items[i] = items[j]!;
      items[j] = tmp;
    }
    return items;
  }
}
