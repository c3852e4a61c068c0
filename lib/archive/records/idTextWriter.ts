/**
 * Writes an id's canonical JSON text as UTF-8 straight into one reused buffer, for the id to be hashed from
 * those bytes (`recordId.ts`): the bytes `Buffer.from(text, 'utf8')` gives for the text built as a string
 * (test/records/idLayout.test.ts checks the ids over arbitrary records, test/records/idTextWriter.test.ts each
 * kind of value), with no string made for a field or for the whole text. Every record is hashed this way once
 * or twice, on the walk's thread and the encoder's, so the strings it saves (about 1.2 KiB a record) are
 * garbage those threads no longer collect.
 */
export class IdTextWriter {
  #bytes = Buffer.allocUnsafe(1024);
  #at = 0;

  /** Starts a new text with `prefix`'s bytes (ASCII). */
  begin(prefix: Uint8Array): this {
    this.#at = 0;
    return this.raw(prefix);
  }

  /** Appends ASCII bytes as they are (the keys and punctuation between the values). */
  raw(ascii: Uint8Array): this {
    this.#room(ascii.length);
    // `set` copies as memory does: a loop a byte costs about twice as much for these 1–30-byte pieces.
    this.#bytes.set(ascii, this.#at);
    this.#at += ascii.length;
    return this;
  }

  /** Appends `JSON.stringify(text)`: quoted as it is when it is ASCII with nothing JSON escapes. */
  text(text: string): this {
    const n = text.length;
    this.#room(n + 2);
    const bytes = this.#bytes;
    const start = this.#at;
    let at = start;
    bytes[at++] = QUOTE;
    for (let i = 0; i < n; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x20 || code === QUOTE || code === BACKSLASH || code > 0x7f) {
        this.#at = start;
        return this.#utf8(JSON.stringify(text));
      }
      bytes[at++] = code;
    }
    bytes[at++] = QUOTE;
    this.#at = at;
    return this;
  }

  /** Appends `JSON.stringify(text)`, or `null`. */
  nullableText(text: string | null): this {
    return text === null ? this.raw(NULL) : this.text(text);
  }

  /** Appends `JSON.stringify(n)` of a number or null (a non-finite number is `null` there too). */
  number(n: number | null): this {
    if (n === null || !Number.isFinite(n)) return this.raw(NULL);
    if (n >= 0 && n < 2_147_483_648 && Math.floor(n) === n && !Object.is(n, -0)) return this.#digits(n, 0);
    // Epoch milliseconds: as two halves of at most nine digits each, both small integers.
    if (n >= 1e9 && n < 1e15 && Math.floor(n) === n) {
      const high = Math.floor(n / 1e9);
      const low = n - high * 1e9;
      if (low >= 0 && low < 1e9) return this.#digits(high, 0).#digits(low, 9);
    }
    return this.#utf8(String(n));
  }

  /** The bytes written since `begin`: a view of the buffer, valid until the next write. */
  bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#at);
  }

  /** A non-negative small integer's decimal digits, zero-padded to `width`. */
  #digits(n: number, width: number): this {
    let count = 1;
    for (let v = n; v >= 10; v = (v / 10) | 0) count++;
    if (count < width) count = width;
    this.#room(count);
    const bytes = this.#bytes;
    let v = n;
    for (let p = this.#at + count - 1; p >= this.#at; p--) {
      const q = (v / 10) | 0;
      bytes[p] = 48 + v - q * 10;
      v = q;
    }
    this.#at += count;
    return this;
  }

  #utf8(text: string): this {
    this.#room(text.length * 3);
    this.#at += this.#bytes.write(text, this.#at, 'utf8');
    return this;
  }

  #room(extra: number): void {
    if (this.#at + extra <= this.#bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#bytes.length * 2, this.#at + extra));
    this.#bytes.copy(grown, 0, 0, this.#at);
    this.#bytes = grown;
  }
}

/** The ASCII bytes of a fixed piece of an id's text. */
export function asciiPiece(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NULL = asciiPiece('null');
