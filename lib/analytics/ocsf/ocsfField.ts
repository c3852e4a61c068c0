/**
 * The OCSF mapping as a tree of typed fields: one tree renders the SQL (Trino's, which DuckDB runs
 * through the shims of lib/analytics/sql/dialect.ts) and the column types the Glue views declare.
 */
export type OcsfScalar = 'varchar' | 'integer' | 'bigint' | 'boolean';
export type OcsfType = OcsfScalar | { row: readonly OcsfField[] } | { array: OcsfType };

export interface OcsfField {
  name: string;
  type: OcsfType;
  /** The field's SQL expression; a row without one is built from its fields' expressions. */
  sql?: string;
  /** For a row: the condition under which it exists (otherwise NULL, which serialising leaves out). */
  when?: string;
}

const GLUE_SCALAR: Record<OcsfScalar, string> = {
  varchar: 'string',
  integer: 'int',
  bigint: 'bigint',
  boolean: 'boolean',
};

const quoted = (name: string) => `"${name}"`;

/** The Presto/Trino type (`row("uid" varchar, ...)`), also accepted by DuckDB. */
export function prestoType(t: OcsfType): string {
  if (typeof t === 'string') return t;
  if ('array' in t) return `array(${prestoType(t.array)})`;
  return `row(${t.row.map((f) => `${quoted(f.name)} ${prestoType(f.type)}`).join(', ')})`;
}

/** The Glue (Hive) type (`struct<uid:string,...>`). */
export function glueType(t: OcsfType): string {
  if (typeof t === 'string') return GLUE_SCALAR[t];
  if ('array' in t) return `array<${glueType(t.array)}>`;
  return `struct<${t.row.map((f) => `${f.name}:${glueType(f.type)}`).join(',')}>`;
}

/** The field's value as SQL, cast to its type (so both engines give the same types). */
export function fieldSql(f: OcsfField): string {
  if (typeof f.type !== 'string' && 'row' in f.type && f.sql === undefined) {
    const row = `CAST(ROW(${f.type.row.map(fieldSql).join(', ')}) AS ${prestoType(f.type)})`;
    return f.when === undefined ? row : `CASE WHEN ${f.when} THEN ${row} END`;
  }
  if (f.sql === undefined) throw new TypeError(`OCSF field ${f.name} has no SQL`);
  // Arrays are typed by their elements: DuckDB spells array types differently (T[]), so no CAST.
  if (typeof f.type !== 'string' && 'array' in f.type) return f.sql;
  return `CAST(${f.sql} AS ${prestoType(f.type)})`;
}

/** A constant (JSON-like) as SQL of the given type: products, loggers, ATT&CK entries. */
export function literalSql(t: OcsfType, value: unknown): string {
  if (value === undefined || value === null)
    return typeof t !== 'string' && 'array' in t ? 'NULL' : `CAST(NULL AS ${prestoType(t)})`;
  if (typeof t === 'string') {
    if (t === 'varchar') return `'${String(value).replaceAll("'", "''")}'`;
    if (t === 'boolean') return value ? 'true' : 'false';
    return `CAST(${Number(value)} AS ${t})`;
  }
  if ('array' in t) {
    const items = value as unknown[];
    return items.length === 0 ? 'NULL' : `ARRAY[${items.map((v) => literalSql(t.array, v)).join(', ')}]`;
  }
  const obj = value as Record<string, unknown>;
  return `CAST(ROW(${t.row.map((f) => literalSql(f.type, obj[f.name])).join(', ')}) AS ${prestoType(t)})`;
}

/** A row field built from its fields. */
export const row = (name: string, fields: readonly OcsfField[], when?: string): OcsfField =>
  when === undefined ? { name, type: { row: fields } } : { name, type: { row: fields }, when };

/** A leaf field. */
export const leaf = (name: string, type: OcsfType, sql: string): OcsfField => ({ name, type, sql });

/** A constant field. */
export const constant = (name: string, type: OcsfType, value: unknown): OcsfField => ({
  name,
  type,
  sql: literalSql(type, value),
});

/** `SELECT <fields> FROM ...`: the top-level fields as quoted columns. */
export function selectList(fields: readonly OcsfField[]): string {
  return fields.map((f) => `  ${fieldSql(f)} AS ${quoted(f.name)}`).join(',\n');
}

/** The view's columns for the Glue catalog. */
export function viewColumns(
  fields: readonly OcsfField[],
): { name: string; athenaType: string; prestoType: string }[] {
  return fields.map((f) => ({ name: f.name, athenaType: glueType(f.type), prestoType: prestoType(f.type) }));
}

/** Every attribute path of the fields (`metadata.product.name`, ...), arrays' elements included. */
export function fieldPaths(fields: readonly OcsfField[], parent = ''): string[] {
  return fields.flatMap((f) => {
    const path = `${parent}${f.name}`;
    let t: OcsfType = f.type;
    while (typeof t !== 'string' && 'array' in t) t = t.array;
    return typeof t === 'string' ? [path] : [path, ...fieldPaths(t.row, `${path}.`)];
  });
}
