import type { SchemaElement } from 'hyparquet';
import type { ArchiveRow } from '../records/archiveRow.ts';

/**
 * Column kinds of the archive's datasets (history, active/, findings/); each maps to exactly one Parquet
 * shape and one Athena/Glue type.
 */
export type ColumnKind = 'string' | 'timestamp' | 'int' | 'bigint' | 'string_list';

/** One column of a dataset whose rows are `Row`. */
export interface ColumnSpec<Row> {
  name: keyof Row & string;
  kind: ColumnKind;
  nullable: boolean;
}

/** The one source of truth: the Parquet schema and the Glue column list are both derived from it. */
const COLUMNS = [
  { name: 'record_id', kind: 'string', nullable: false },
  { name: 'session_id', kind: 'string', nullable: false },
  { name: 'start_time', kind: 'timestamp', nullable: false },
  { name: 'end_time', kind: 'timestamp', nullable: true },
  { name: 'user_email', kind: 'string', nullable: false },
  { name: 'token_value', kind: 'string', nullable: true },
  { name: 'virtual_token_value', kind: 'string', nullable: true },
  { name: 'token_hmac', kind: 'string', nullable: true },
  { name: 'virtual_token_hmac', kind: 'string', nullable: true },
  { name: 'domains', kind: 'string_list', nullable: false },
  { name: 'mode', kind: 'string', nullable: false },
  { name: 'mode_udp', kind: 'string', nullable: false },
  { name: 'client_ip', kind: 'string', nullable: false },
  { name: 'client_address', kind: 'string', nullable: true },
  { name: 'client_port', kind: 'int', nullable: true },
  { name: 'port', kind: 'int', nullable: true },
  { name: 'extra_json', kind: 'string', nullable: true },
  { name: 'archived_at', kind: 'timestamp', nullable: false },
  // Added after the first release: last, so files and tables keep every earlier column's position.
  { name: 'start_time_text', kind: 'string', nullable: true },
  { name: 'end_time_text', kind: 'string', nullable: true },
] as const satisfies readonly ColumnSpec<ArchiveRow>[];

// Compile-time guard: every ArchiveRow field has a column (a missing one makes this `true` fail to assign).
type MissingColumns = Exclude<keyof ArchiveRow, (typeof COLUMNS)[number]['name']>;
const everyFieldHasAColumn: [MissingColumns] extends [never] ? true : MissingColumns = true;
void everyFieldHasAColumn;

const STRING = { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } } as const;

export const ATHENA_TYPE: Record<ColumnKind, string> = {
  string: 'string',
  timestamp: 'timestamp',
  int: 'int',
  bigint: 'bigint',
  string_list: 'array<string>',
};

/** The columns written as INT64 timestamps (epoch milliseconds in the file). */
export const HISTORY_TIMESTAMP_COLUMNS: ReadonlySet<keyof ArchiveRow> = new Set(
  COLUMNS.filter((c) => c.kind === 'timestamp').map((c) => c.name),
);

/** Each column's kind, in file order (`HISTORY_COLUMN_NAMES`). */
export const HISTORY_COLUMN_KINDS: readonly ColumnKind[] = COLUMNS.map((c) => c.kind);

/** Column order of the archive files, as in `ArchiveRow`. */
export const HISTORY_COLUMN_NAMES: readonly (keyof ArchiveRow)[] = COLUMNS.map((c) => c.name);

/**
 * Columns with their Athena/Glue types, in file order. The CDK Glue table is generated from this, so the
 * table and the Parquet files cannot drift apart.
 */
export const HISTORY_COLUMNS: { name: string; athenaType: string }[] = COLUMNS.map((c) => ({
  name: c.name,
  athenaType: ATHENA_TYPE[c.kind],
}));

/**
 * The explicit Parquet schema (flattened, depth-first, as the Parquet footer stores it). Timestamps are
 * INT64 TIMESTAMP(MILLIS, isAdjustedToUTC=true) with the legacy TIMESTAMP_MILLIS converted type too, so
 * both old (converted-type) and new (logical-type) readers see instants in UTC; `domains` is the standard
 * 3-level LIST (`domains` / repeated `list` / `element`).
 */
export const HISTORY_PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: COLUMNS.length },
  ...COLUMNS.flatMap((c) => schemaElements(c)),
];

/** The Parquet elements of one column of these kinds (shared by every dataset written with them). */
export function schemaElements({
  name,
  kind,
  nullable,
}: {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
}): SchemaElement[] {
  const repetition_type = nullable ? 'OPTIONAL' : 'REQUIRED';
  switch (kind) {
    case 'string':
      return [{ name, repetition_type, ...STRING }];
    case 'int':
      // Plain INT32 (signed 32-bit by definition): readable as `int` by every Hive-era reader.
      return [{ name, repetition_type, type: 'INT32' }];
    case 'bigint':
      // JS numbers are handed to the writer as bigint.
      return [{ name, repetition_type, type: 'INT64' }];
    case 'timestamp':
      return [
        {
          name,
          repetition_type,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        },
      ];
    case 'string_list':
      return [
        { name, repetition_type, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', repetition_type: 'REQUIRED', ...STRING },
      ];
  }
}
