import type { Encoding, SchemaElement } from 'hyparquet';
import { DIGEST_COMPRESSORS, type ParquetCompressors } from './parquetCompression.ts';

/** Per-column write options handed to hyparquet-writer (a subset of its `ColumnSource`). */
export interface HistoryColumnOptions {
  /** Forced encoding; absent lets the library dictionary-encode when the dictionary pays. */
  encoding?: Encoding;
  /** Chunk min/max/null-count statistics in the footer. */
  statistics: boolean;
  /** Page offset index: off, as every column chunk of these files is one page or a few. */
  offsetIndex: false;
  /** Compressors merged over the file's for this column's pages (`writeHistoryRowGroup` reads them). */
  compressors?: ParquetCompressors;
}

/**
 * Columns whose values are (nearly) all distinct: ids, digests of one session, client endpoints. A
 * dictionary never pays; lengths delta-encode to almost nothing; min/max statistics prune nothing.
 */
const UNIQUE_STRINGS: ReadonlySet<string> = new Set([
  'record_id',
  'session_id',
  'client_ip',
  'client_address',
  'extra_json',
]);

/** Unique strings that are hex digests: uniformly random characters (`DIGEST_COMPRESSORS`). */
const DIGESTS: ReadonlySet<string> = new Set(['record_id', 'session_id']);

/**
 * Strings from a small set (users, modes, tokens of one account): always dictionary-encoded, so each row
 * stores a few bits. Token digests keep no statistics: min/max of keyed hashes prune nothing.
 */
const LOW_CARDINALITY: Readonly<Record<string, { statistics: boolean }>> = {
  user_email: { statistics: true },
  mode: { statistics: true },
  mode_udp: { statistics: true },
  token_hmac: { statistics: false },
  virtual_token_hmac: { statistics: false },
};

/**
 * How each top-level column of `schema` is written. Chosen on the default dataset (see bench/RESULTS.md):
 * - INT64/INT32 columns (timestamps, ports): DELTA_BINARY_PACKED, with statistics (time pruning);
 * - unique strings: DELTA_LENGTH_BYTE_ARRAY, no statistics; the ids among them compressed as digests;
 * - low-cardinality strings: RLE_DICTIONARY;
 * - anything else (`domains`, raw tokens, columns added later): the library's choice, with statistics.
 * Every encoding here is read by Athena (Trino), DuckDB, arrow-rs and hyparquet.
 */
export function historyColumnOptions(schema: readonly SchemaElement[]): Map<string, HistoryColumnOptions> {
  const out = new Map<string, HistoryColumnOptions>();
  for (const element of topLevelColumns(schema)) {
    out.set(element.name, optionsFor(element));
  }
  return out;
}

function optionsFor(element: SchemaElement): HistoryColumnOptions {
  const { name, type } = element;
  if (type === 'INT64' || type === 'INT32') {
    return { encoding: 'DELTA_BINARY_PACKED', statistics: true, offsetIndex: false };
  }
  if (UNIQUE_STRINGS.has(name)) {
    const unique = { encoding: 'DELTA_LENGTH_BYTE_ARRAY', statistics: false, offsetIndex: false } as const;
    return DIGESTS.has(name) ? { ...unique, compressors: DIGEST_COMPRESSORS } : unique;
  }
  const low = LOW_CARDINALITY[name];
  if (low) return { encoding: 'RLE_DICTIONARY', statistics: low.statistics, offsetIndex: false };
  return { statistics: true, offsetIndex: false };
}

/** The direct children of the root, skipping the nested elements of groups such as LIST. */
function topLevelColumns(schema: readonly SchemaElement[]): SchemaElement[] {
  const out: SchemaElement[] = [];
  let i = 1;
  while (i < schema.length) {
    const element = schema[i] as SchemaElement;
    out.push(element);
    i += 1 + descendants(schema, i);
  }
  return out;
}

function descendants(schema: readonly SchemaElement[], at: number): number {
  const children = schema[at]?.num_children ?? 0;
  let count = 0;
  let next = at + 1;
  for (let c = 0; c < children; c++) {
    const sub = 1 + descendants(schema, next);
    count += sub;
    next += sub;
  }
  return count;
}
