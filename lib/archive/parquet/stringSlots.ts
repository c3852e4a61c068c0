import type { ByteWriter } from 'hyparquet-writer';
import type { ColumnEncoder } from 'hyparquet-writer/src/types.js';
import type { DataPage } from './writeDataPage.ts';

/** A column's value slots and levels, as the library's Dremel encoding lays them out. */
export interface Slots {
  /**
   * A REQUIRED flat column's own rows (the library's readers and this module's only read them, and its types
   * take no readonly array); otherwise an array of its own.
   */
  values: (string | undefined)[];
  definitionLevels: number[];
  repetitionLevels: number[];
  maxDefinitionLevel: number;
  maxRepetitionLevel: number;
}

/**
 * The UTF-8 bytes of `strings` joined, when every one is ASCII (so each string's bytes are its
 * `length`, and a column's bytes can be sliced by its strings' lengths); undefined otherwise.
 */
export function asciiBytes(strings: readonly string[]): Buffer | undefined {
  const joined = strings.join('');
  const bytes = Buffer.from(joined, 'utf8');
  // More UTF-8 bytes than UTF-16 units: a character past ASCII (a lone surrogate included).
  return bytes.length === joined.length ? bytes : undefined;
}

/** The strings of a column's slots, its empty slots (nulls, empty lists) left out: the slots themselves when it has none. */
export function presentValues(slots: Slots): readonly string[] {
  const { values } = slots;
  if (slots.maxDefinitionLevel === 0) return values as readonly string[];
  const strings: string[] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value !== undefined) strings.push(value);
  }
  return strings;
}

/** A page's levels, sliced from the column's, and its rows, with `body` as its encoded values. */
export function slotsPage(
  slots: Slots,
  start: number,
  end: number,
  body: ByteWriter,
): Omit<DataPage, 'encoding'> {
  const { definitionLevels, repetitionLevels, maxDefinitionLevel, maxRepetitionLevel } = slots;
  return {
    rows: repetitionLevels.length ? countRows(repetitionLevels, start, end) : end - start,
    definitionLevels: definitionLevels.slice(start, end),
    maxDefinitionLevel,
    repetitionLevels: repetitionLevels.slice(start, end),
    maxRepetitionLevel,
    body,
  };
}

/**
 * The value slots and levels of `rows` in `column`, or undefined for a shape this does not write or a
 * value the library would refuse: a flat column holds a string a row (or null, when OPTIONAL); the list
 * shape holds an array of strings a row, an empty one taking one empty slot.
 */
export function slotsOf(column: ColumnEncoder, rows: readonly unknown[]): Slots | undefined {
  const path = column.schemaPath;
  const top = path[1];
  if (path.length === 2 && top && top.repetition_type !== 'REPEATED') {
    const optional = top.repetition_type === 'OPTIONAL';
    if (!optional) {
      // A REQUIRED column of strings: its rows are its value slots, read as they are (never written to).
      for (let i = 0; i < rows.length; i++) if (typeof rows[i] !== 'string') return;
      return {
        values: rows as string[],
        definitionLevels: [],
        repetitionLevels: [],
        maxDefinitionLevel: 0,
        maxRepetitionLevel: 0,
      };
    }
    // An OPTIONAL column: a slot and a level a row, into arrays made at their length (not grown).
    const slots: (string | undefined)[] = new Array(rows.length);
    const levels: number[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const value = rows[i];
      if (typeof value === 'string') {
        slots[i] = value;
        levels[i] = 1;
      } else if (value === null || value === undefined) {
        slots[i] = undefined;
        levels[i] = 0;
      } else return;
    }
    return {
      values: slots,
      definitionLevels: levels,
      repetitionLevels: [],
      maxDefinitionLevel: 1,
      maxRepetitionLevel: 0,
    };
  }
  const [, list, repeated, item] = path;
  const standardList =
    path.length === 4 &&
    list?.repetition_type === 'REQUIRED' &&
    list.converted_type === 'LIST' &&
    repeated?.repetition_type === 'REPEATED' &&
    item?.repetition_type === 'REQUIRED';
  if (!standardList) return;
  const values: (string | undefined)[] = [];
  const definitionLevels: number[] = [];
  const repetitionLevels: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!Array.isArray(row)) return;
    if (row.length === 0) {
      values.push(undefined);
      definitionLevels.push(0);
      repetitionLevels.push(0);
      continue;
    }
    for (let j = 0; j < row.length; j++) {
      const value: unknown = row[j];
      if (typeof value !== 'string') return;
      values.push(value);
      definitionLevels.push(1);
      repetitionLevels.push(j === 0 ? 0 : 1);
    }
  }
  return { values, definitionLevels, repetitionLevels, maxDefinitionLevel: 1, maxRepetitionLevel: 1 };
}

function countRows(repetitionLevels: readonly number[], start: number, end: number): number {
  let rows = 0;
  for (let i = start; i < end; i++) if (repetitionLevels[i] === 0) rows++;
  return rows;
}
