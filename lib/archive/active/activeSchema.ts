import type { SchemaElement } from 'hyparquet';
import { ATHENA_TYPE, type ColumnSpec, schemaElements } from '../parquet/historySchema.ts';
import type { ActiveRow } from './activeRow.ts';

/** The one source of truth of `active/`: the Parquet schema and the Glue columns are derived from it. */
const COLUMNS = [
  { name: 'row_id', kind: 'string', nullable: false },
  { name: 'observed_at', kind: 'timestamp', nullable: false },
  { name: 'event', kind: 'string', nullable: false },
  { name: 'id', kind: 'string', nullable: false },
  { name: 'user_id', kind: 'bigint', nullable: false },
  { name: 'token_id', kind: 'bigint', nullable: false },
  { name: 'token', kind: 'string', nullable: true },
  { name: 'token_hmac', kind: 'string', nullable: true },
  { name: 'token_name', kind: 'string', nullable: true },
  { name: 'virtual_token', kind: 'string', nullable: true },
  { name: 'virtual_token_hmac', kind: 'string', nullable: true },
  { name: 'virtual_token_name', kind: 'string', nullable: true },
  { name: 'subdomain', kind: 'string', nullable: false },
  { name: 'customdomain', kind: 'string', nullable: true },
  { name: 'mode', kind: 'string', nullable: false },
  { name: 'mode_udp', kind: 'string', nullable: false },
  { name: 'port', kind: 'int', nullable: false },
  { name: 'creation_time', kind: 'timestamp', nullable: false },
  { name: 'last_update_time', kind: 'timestamp', nullable: false },
  { name: 'extra_json', kind: 'string', nullable: true },
  // Last, so files written before it keep their column order; a reader takes it as null there.
  { name: 'join_token_hmac', kind: 'string', nullable: true },
] as const satisfies readonly ColumnSpec<ActiveRow>[];

type MissingColumns = Exclude<keyof ActiveRow, (typeof COLUMNS)[number]['name']>;
const everyFieldHasAColumn: [MissingColumns] extends [never] ? true : MissingColumns = true;
void everyFieldHasAColumn;

/** Column order of the `active/` files. */
export const ACTIVE_COLUMN_NAMES: readonly (keyof ActiveRow)[] = COLUMNS.map((c) => c.name);

/** Columns whose Parquet type is INT64 (JS numbers are handed to the writer as bigint). */
export const ACTIVE_BIGINT_COLUMNS: ReadonlySet<keyof ActiveRow> = new Set(
  COLUMNS.filter((c) => c.kind === 'bigint').map((c) => c.name),
);

/** Columns with their Athena/Glue types, in file order (the CDK Glue table is generated from this). */
export const ACTIVE_COLUMNS: { name: string; athenaType: string }[] = COLUMNS.map((c) => ({
  name: c.name,
  athenaType: ATHENA_TYPE[c.kind],
}));

/** Flattened Parquet schema; timestamps as in history: INT64 TIMESTAMP(MILLIS, UTC). */
export const ACTIVE_PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: COLUMNS.length },
  ...COLUMNS.flatMap(schemaElements),
];
