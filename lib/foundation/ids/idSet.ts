import { ArchiverError } from '../errors/archiverError.ts';
import { mix32 } from './mix32.ts';

/** Bytes per id: 128 bits. */
export const ID_BYTES = 16;

/**
 * Most ids a set is sized for up front from a hint (a day's reported total, a manifest's rows): about
 * 48 MiB of table. An absurd hint then costs nothing; a set past it grows as it fills.
 */
export const MAX_PRESIZED_IDS = 2_000_000;

/** The size to make a set for a hint of `expected` ids: the hint, within 1 024 and {@link MAX_PRESIZED_IDS}. */
export function presizedFor(expected: number): number {
  return Number.isSafeInteger(expected) ? Math.min(Math.max(expected, 1024), MAX_PRESIZED_IDS) : 1024;
}

const EMPTY = 0;
const MAX_LOAD = 0.7;
/** A full table grows by half again (not doubling): the peak while both tables live is 2.5×, not 3×. */
const GROWTH = 1.5;
const TWO_POW_32 = 4_294_967_296;

/**
 * A set of 128-bit ids held flat in typed arrays: 16 bytes per id in one `Uint32Array` (plus one byte of
 * occupancy), instead of a JS string per id in a `Set` or `Map` (about 100 bytes each). Open addressing
 * with linear probing in a table of any size (not a power of two): it grows by half when 70% full, and a
 * set sized up front for its ids holds 17 / 0.7 ≈ 24 bytes an id. Ids come in as 32 hex characters (the
 * archive's `record_id`) or as 16-byte buffers. The first slot of an id is its low 32 bits mixed with a
 * seed of the table's size, scaled to the table: a set filled in another set's order (its `values()`, a
 * file of ids written from them, `addAll`) meets a different order of slots, not the same order
 * compressed into a smaller table, where every id would land in one run of taken slots and each insert
 * would probe the whole run (quadratic: 100,000 ids took 28 s instead of 0.4).
 */
export class IdSet {
  #words: Uint32Array;
  #used: Uint8Array;
  /** Table slots per unit of a mixed low word: `floor(mix32(d ^ seed) * scale)` is the first slot of an id. */
  #scale: number;
  /** Mixed into the low word before it picks a slot; it changes with the table's size. */
  #seed: number;
  #size = 0;

  /** `expected`: how many ids the caller expects; the table starts big enough to hold them unresized. */
  constructor(expected = 1024) {
    const slots = slotsFor(expected);
    this.#words = new Uint32Array(slots * 4);
    this.#used = new Uint8Array(slots);
    this.#scale = slots / TWO_POW_32;
    this.#seed = seedOf(slots);
  }

  /** How many distinct ids the set holds. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held by the table (what the set costs in memory). */
  get byteLength(): number {
    return this.#words.byteLength + this.#used.byteLength;
  }

  /** Whether `id` is in the set. */
  has(id: string | Uint8Array | Uint32Array): boolean {
    const w = toWords(id);
    return this.#find(w[0] as number, w[1] as number, w[2] as number, w[3] as number) >= 0;
  }

  /** Adds `id`; returns true when it was not there before (so "add, and tell me if new" is one probe). */
  add(id: string | Uint8Array | Uint32Array): boolean {
    const w = toWords(id);
    const a = w[0] as number;
    const b = w[1] as number;
    const c = w[2] as number;
    const d = w[3] as number;
    if (this.#find(a, b, c, d) >= 0) return false;
    if ((this.#size + 1) / this.#used.length > MAX_LOAD) this.#grow();
    this.#insert(a, b, c, d);
    this.#size++;
    return true;
  }

  /**
   * Adds the id written as 32 hex characters (ASCII bytes) at `at` in `bytes`: a file of ids is read without
   * a string per id. True when it was not there before; `INTERNAL` when the 32 bytes are not hex.
   */
  addHex(bytes: Uint8Array, at: number): boolean {
    return this.add(hexBytesToWords(bytes, at));
  }

  /** Adds every id of `other` (word by word: no strings). */
  addAll(other: IdSet): void {
    other.#eachSlot((w, at) => {
      this.add(w.subarray(at, at + 4));
    });
  }

  /** The ids of this set that `other` lacks: this very set when none of its ids is in `other`. */
  without(other: IdSet): IdSet {
    let shared = 0;
    this.#eachSlot((w, at) => {
      if (other.#find(w[at] as number, w[at + 1] as number, w[at + 2] as number, w[at + 3] as number) >= 0) {
        shared++;
      }
    });
    if (shared === 0) return this;
    const out = new IdSet(this.#size - shared);
    this.#eachSlot((w, at) => {
      const [a, b, c, d] = [w[at] as number, w[at + 1] as number, w[at + 2] as number, w[at + 3] as number];
      if (other.#find(a, b, c, d) < 0) {
        out.#insert(a, b, c, d);
        out.#size++;
      }
    });
    return out;
  }

  /**
   * The longest run of taken slots: the most a lookup can probe. With ids spread over the table it stays
   * within a few dozen slots whatever order the ids came in; the tests read it.
   */
  longestRun(): number {
    const used = this.#used;
    let longest = 0;
    let run = 0;
    // Twice round: a run may wrap from the last slot to the first.
    for (let i = 0; i < used.length * 2 && run < used.length; i++) {
      run = used[i % used.length] === EMPTY ? 0 : run + 1;
      if (run > longest) longest = run;
    }
    return longest;
  }

  #eachSlot(fn: (words: Uint32Array, at: number) => void): void {
    const words = this.#words;
    const used = this.#used;
    for (let slot = 0; slot < used.length; slot++) if (used[slot] !== EMPTY) fn(words, slot * 4);
  }

  /** Every id as 32 lowercase hex characters, in table order (not insertion order). */
  *values(): Generator<string> {
    const words = this.#words;
    for (let slot = 0; slot < this.#used.length; slot++) {
      if (this.#used[slot] === EMPTY) continue;
      const at = slot * 4;
      yield hex8(words[at] as number) +
        hex8(words[at + 1] as number) +
        hex8(words[at + 2] as number) +
        hex8(words[at + 3] as number);
    }
  }

  /**
   * The ids as the text of hex lines, in table order (`values()` joined by newlines: a newline between two
   * ids, none after the last), `perChunk` ids a chunk, written from the words straight into bytes (no
   * string per id). Every id the set held when the first chunk was asked for is in the text: the chunks
   * read that table, which a growth meanwhile replaces but never changes (an id added meanwhile may be
   * in it or not).
   */
  *hexLines(perChunk = 65_536): Generator<Uint8Array> {
    const words = this.#words;
    const used = this.#used;
    const chunkBytes = (): number => Math.max(1, Math.min(this.#size, perChunk)) * HEX_LINE;
    let out = new Uint8Array(chunkBytes());
    let at = 0;
    let first = true;
    for (let slot = 0; slot < used.length; slot++) {
      if (used[slot] === EMPTY) continue;
      if (at + HEX_LINE > out.length) {
        yield out.subarray(0, at);
        out = new Uint8Array(chunkBytes());
        at = 0;
      }
      if (!first) out[at++] = NEWLINE;
      first = false;
      at = writeHexWords(words, slot * 4, out, at);
    }
    if (at > 0) yield out.subarray(0, at);
  }

  [Symbol.iterator](): Generator<string> {
    return this.values();
  }

  #find(a: number, b: number, c: number, d: number): number {
    const words = this.#words;
    const used = this.#used;
    const slots = used.length;
    let slot = Math.floor(mix32(d ^ this.#seed) * this.#scale);
    while (used[slot] !== EMPTY) {
      const at = slot * 4;
      if (words[at + 3] === d && words[at] === a && words[at + 1] === b && words[at + 2] === c) return slot;
      if (++slot === slots) slot = 0;
    }
    return -1;
  }

  #insert(a: number, b: number, c: number, d: number): void {
    const slots = this.#used.length;
    let slot = Math.floor(mix32(d ^ this.#seed) * this.#scale);
    while (this.#used[slot] !== EMPTY) if (++slot === slots) slot = 0;
    const at = slot * 4;
    this.#words[at] = a;
    this.#words[at + 1] = b;
    this.#words[at + 2] = c;
    this.#words[at + 3] = d;
    this.#used[slot] = 1;
  }

  #grow(): void {
    const oldWords = this.#words;
    const oldUsed = this.#used;
    const slots = roundSlots(oldUsed.length * GROWTH);
    this.#words = new Uint32Array(slots * 4);
    this.#used = new Uint8Array(slots);
    this.#scale = slots / TWO_POW_32;
    this.#seed = seedOf(slots);
    for (let slot = 0; slot < oldUsed.length; slot++) {
      if (oldUsed[slot] === EMPTY) continue;
      const at = slot * 4;
      this.#insert(
        oldWords[at] as number,
        oldWords[at + 1] as number,
        oldWords[at + 2] as number,
        oldWords[at + 3] as number,
      );
    }
  }
}

/** A table's seed: tables of different sizes order the same ids differently. */
function seedOf(slots: number): number {
  return mix32(slots ^ 0x9e3779b9);
}

function slotsFor(expected: number): number {
  return roundSlots(Math.max(16, Math.ceil(Math.max(0, expected) / MAX_LOAD) + 1));
}

/** Up to a multiple of 16 slots (whole cache lines of the occupancy bytes). */
function roundSlots(slots: number): number {
  return Math.ceil(slots / 16) * 16;
}

// One scratch quad reused by every call: the set is single-threaded and never re-entered mid-call.
const scratch = new Uint32Array(4);
/**
 * The last id text parsed and its words: a walk's record meets several sets in a row (the walk's, the
 * partition's, its file's), each with the same string, which is then parsed once. Its own quad, since
 * `scratch` is rewritten by byte ids in between; callers only read what `toWords` returns.
 */
let lastText: string | undefined;
const lastWords = new Uint32Array(4);

/** The id as four big-endian 32-bit words; `INTERNAL` for anything that is not a 128-bit id. */
function toWords(id: string | Uint8Array | Uint32Array): Uint32Array {
  if (id instanceof Uint32Array) {
    if (id.length !== 4) throw new ArchiverError('INTERNAL', `an id must be 4 words, got ${id.length}`);
    return id;
  }
  if (typeof id === 'string') {
    if (id === lastText) return lastWords;
    // Parsed by hand (no RegExp, no substrings): this runs once per record of every walk.
    if (id.length !== ID_BYTES * 2) throw notAnId(id);
    lastText = undefined;
    for (let i = 0; i < 4; i++) {
      let word = 0;
      for (let j = i * 8; j < i * 8 + 8; j++) {
        const nibble = HEX_VALUE[id.charCodeAt(j)] ?? 16;
        if (nibble > 15) throw notAnId(id);
        word = (word << 4) | nibble;
      }
      lastWords[i] = word >>> 0;
    }
    lastText = id;
    return lastWords;
  }
  if (id.byteLength !== ID_BYTES) {
    throw new ArchiverError('INTERNAL', `an id must be ${ID_BYTES} bytes, got ${id.byteLength}`);
  }
  for (let i = 0; i < 4; i++) {
    const o = i * 4;
    scratch[i] =
      (((id[o] as number) << 24) |
        ((id[o + 1] as number) << 16) |
        ((id[o + 2] as number) << 8) |
        (id[o + 3] as number)) >>>
      0;
  }
  return scratch;
}

/** Bytes of one hex line: 32 characters and the newline before the next. */
const HEX_LINE = ID_BYTES * 2 + 1;
const NEWLINE = 0x0a;
/** The ASCII codes of `0-9a-f`. */
const HEX_CHAR = new TextEncoder().encode('0123456789abcdef');

/** Writes the 4 words at `from` as 32 lowercase hex characters at `at` in `out`; the offset after them. */
function writeHexWords(words: Uint32Array, from: number, out: Uint8Array, at: number): number {
  for (let i = from; i < from + 4; i++) {
    const w = words[i] as number;
    for (let shift = 28; shift >= 0; shift -= 4) out[at++] = HEX_CHAR[(w >>> shift) & 15] as number;
  }
  return at;
}

/** The 32 hex characters (ASCII bytes) at `at` in `bytes` as four big-endian words (the scratch quad). */
function hexBytesToWords(bytes: Uint8Array, at: number): Uint32Array {
  if (at < 0 || at + ID_BYTES * 2 > bytes.length) throw notAnId(latin1(bytes, at));
  for (let i = 0; i < 4; i++) {
    let word = 0;
    for (let j = at + i * 8; j < at + i * 8 + 8; j++) {
      const nibble = HEX_VALUE[bytes[j] as number] ?? 16;
      if (nibble > 15) throw notAnId(latin1(bytes, at));
      word = (word << 4) | nibble;
    }
    scratch[i] = word >>> 0;
  }
  return scratch;
}

function latin1(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(...bytes.subarray(Math.max(0, at), Math.max(0, at) + 40));
}

/** Nibble value of each char code below 128 (`0-9`, `a-f`, `A-F`); 16 marks anything else. */
const HEX_VALUE: Uint8Array = (() => {
  const table = new Uint8Array(128).fill(16);
  for (let c = 0; c < 10; c++) table[48 + c] = c;
  for (let c = 0; c < 6; c++) {
    table[97 + c] = 10 + c;
    table[65 + c] = 10 + c;
  }
  return table;
})();

function notAnId(id: string): ArchiverError {
  return new ArchiverError(
    'INTERNAL',
    `an id must be 32 hex characters, got ${JSON.stringify(id.slice(0, 40))}`,
  );
}

function hex8(word: number): string {
  return word.toString(16).padStart(8, '0');
}
