import { asciiBytes } from './stringSlots.ts';

/**
 * A range of a string column's rows as bytes: the non-null values' ASCII joined, and each row's length
 * (−1 for null). Held in place of the strings while a row group fills, so the strings die young: the
 * collector neither copies nor marks a buffer's bytes.
 */
export interface PackedStrings {
  kind: 'strings';
  bytes: Buffer;
  lengths: Int32Array;
}

/**
 * A range of a list-of-strings column's rows (`domains`) as bytes: each row's item count, and its
 * items as {@link PackedStrings} would hold them (none null).
 */
export interface PackedLists {
  kind: 'lists';
  counts: Int32Array;
  items: PackedStrings;
}

export type PackedColumn = PackedStrings | PackedLists;

/** Whether a column's values are packed: a {@link PackedColumn}, not an array (typed arrays included). */
export function isPackedColumn(values: unknown): values is PackedColumn {
  if (typeof values !== 'object' || values === null) return false;
  if (Array.isArray(values) || ArrayBuffer.isView(values)) return false;
  const { kind } = values as { kind?: unknown };
  return kind === 'strings' || kind === 'lists';
}

/**
 * Rows `from` to `to` of a column of strings (or nulls; undefined is taken as null) as
 * {@link PackedStrings}; undefined when a value is neither, or a string holds a character past ASCII (the
 * caller keeps that column's strings).
 */
export function packStrings(values: readonly unknown[], from: number, to: number): PackedStrings | undefined {
  const lengths = new Int32Array(to - from);
  const present: string[] = [];
  for (let r = from; r < to; r++) {
    const value = values[r];
    if (typeof value === 'string') {
      lengths[r - from] = value.length;
      present.push(value);
    } else if (value === null || value === undefined) lengths[r - from] = -1;
    else return;
  }
  const bytes = asciiBytes(present);
  return bytes === undefined ? undefined : { kind: 'strings', bytes, lengths };
}

/** Rows `from` to `to` of a column of string arrays as {@link PackedLists}; undefined as {@link packStrings}. */
export function packLists(values: readonly unknown[], from: number, to: number): PackedLists | undefined {
  const counts = new Int32Array(to - from);
  const flat: string[] = [];
  for (let r = from; r < to; r++) {
    const row = values[r];
    if (!Array.isArray(row)) return;
    counts[r - from] = row.length;
    for (const item of row) {
      if (typeof item !== 'string') return;
      flat.push(item);
    }
  }
  const items = packStrings(flat, 0, flat.length);
  return items === undefined ? undefined : { kind: 'lists', counts, items };
}

/** The rows of a {@link PackedColumn} as they were packed: strings (or nulls), or arrays of strings. */
export function unpackColumn(column: PackedColumn): unknown[] {
  if (column.kind === 'strings') return unpackStrings(column);
  const items = unpackStrings(column.items);
  const rows: unknown[] = new Array(column.counts.length);
  let at = 0;
  for (let r = 0; r < column.counts.length; r++) {
    const count = column.counts[r] as number;
    rows[r] = items.slice(at, at + count);
    at += count;
  }
  return rows;
}

function unpackStrings({ bytes, lengths }: PackedStrings): unknown[] {
  const text = bytes.toString('latin1');
  const rows: unknown[] = new Array(lengths.length);
  let at = 0;
  for (let r = 0; r < lengths.length; r++) {
    const length = lengths[r] as number;
    if (length < 0) rows[r] = null;
    else {
      rows[r] = text.slice(at, at + length);
      at += length;
    }
  }
  return rows;
}

/** The rows a packed column holds. */
export function packedRows(column: PackedColumn): number {
  return column.kind === 'strings' ? column.lengths.length : column.counts.length;
}

/** Packed ranges of one column (all of one kind), joined in order into one. */
export function concatPacked(parts: readonly PackedColumn[]): PackedColumn {
  const first = parts[0];
  if (parts.length === 1 && first) return first;
  if (first?.kind === 'lists') {
    const lists = parts as readonly PackedLists[];
    return {
      kind: 'lists',
      counts: concatInt32(lists.map((p) => p.counts)),
      items: concatPacked(lists.map((p) => p.items)) as PackedStrings,
    };
  }
  const strings = parts as readonly PackedStrings[];
  return {
    kind: 'strings',
    bytes: Buffer.concat(strings.map((p) => p.bytes)),
    lengths: concatInt32(strings.map((p) => p.lengths)),
  };
}

function concatInt32(arrays: readonly Int32Array[]): Int32Array {
  let total = 0;
  for (const a of arrays) total += a.length;
  const out = new Int32Array(total);
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}
