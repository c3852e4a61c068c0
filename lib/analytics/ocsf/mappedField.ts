import { epochMsSql } from '../sql/dialect.ts';
import { leaf, literalSql, type OcsfField, type OcsfType, row } from './ocsfField.ts';

/**
 * Where an OCSF attribute's value comes from, said once for both forms of a mapping: the SQL of the
 * Athena view and the DuckDB export (`f` is the source row, `f.revision` its stored revision, 0 for the
 * first), and the value the TypeScript mapper gives one source object (its first revision, or a later one).
 */
export type Source<Row, Rule> =
  | { value: unknown }
  | { column: keyof Row & string }
  | { epochMs: keyof Row & string }
  | { text: Source<Row, Rule> }
  | { concat: readonly Source<Row, Rule>[] }
  | { arrayOf: readonly Source<Row, Rule>[] }
  | { lookup: keyof Row & string; table: Readonly<Record<string, unknown>>; otherwise: unknown }
  | { firstRevision: Source<Row, Rule>; later: Source<Row, Rule> }
  | { perRule: (rule: Rule) => unknown }
  /** Only the SQL has it (a join of other tables); the TypeScript form leaves the attribute out. */
  | { sqlOnly: string };

/** One attribute of a mapping: a typed value from a source, or an object of attributes. */
export type MappedField<Row, Rule> =
  | { name: string; type: OcsfType; from: Source<Row, Rule> }
  | { name: string; fields: readonly MappedField<Row, Rule>[] };

const sqlText = (s: string) => `'${s.replaceAll("'", "''")}'`;

function sourceSql<Row, Rule>(
  s: Source<Row, Rule>,
  type: OcsfType,
  rules: readonly (Rule & { id: string })[],
): string {
  if ('value' in s) return literalSql(type, s.value);
  if ('column' in s) return `f.${s.column}`;
  if ('epochMs' in s) return epochMsSql(`f.${s.epochMs}`);
  if ('text' in s) return `CAST(${sourceSql(s.text, type, rules)} AS varchar)`;
  if ('concat' in s) return s.concat.map((p) => sourceSql(p, 'varchar', rules)).join(' || ');
  if ('arrayOf' in s) {
    const item = typeof type !== 'string' && 'array' in type ? type.array : type;
    return `ARRAY[${s.arrayOf.map((p) => sourceSql(p, item, rules)).join(', ')}]`;
  }
  if ('lookup' in s) {
    const whens = Object.entries(s.table).map(([k, v]) => `WHEN ${sqlText(k)} THEN ${literalSql(type, v)}`);
    return `CASE f.${s.lookup} ${whens.join(' ')} ELSE ${literalSql(type, s.otherwise)} END`;
  }
  if ('firstRevision' in s)
    return `CASE WHEN f.revision = 0 THEN ${sourceSql(s.firstRevision, type, rules)} ELSE ${sourceSql(s.later, type, rules)} END`;
  if ('perRule' in s) {
    const whens = rules.map((r) => `WHEN ${sqlText(r.id)} THEN ${literalSql(type, s.perRule(r))}`);
    return whens.length === 0 ? 'NULL' : `CASE f.rule_id ${whens.join(' ')} END`;
  }
  return s.sqlOnly;
}

/** The mapping as the SQL's typed fields (`rules`: the per-rule values the SQL picks by `f.rule_id`). */
export function mappedSqlFields<Row, Rule>(
  fields: readonly MappedField<Row, Rule>[],
  rules: readonly (Rule & { id: string })[],
): OcsfField[] {
  return fields.map((m) =>
    'fields' in m
      ? row(m.name, mappedSqlFields(m.fields, rules))
      : leaf(m.name, m.type, sourceSql(m.from, m.type, rules)),
  );
}

function sourceValue<Row, Rule>(s: Source<Row, Rule>, r: Row, rule: Rule, later: boolean): unknown {
  const cell = (c: keyof Row) => r[c] as unknown;
  if ('value' in s) return s.value;
  if ('column' in s) return cell(s.column);
  if ('epochMs' in s) return (cell(s.epochMs) as Date).getTime();
  if ('text' in s) return String(sourceValue(s.text, r, rule, later));
  if ('concat' in s) return s.concat.map((p) => sourceValue(p, r, rule, later)).join('');
  if ('arrayOf' in s) return s.arrayOf.map((p) => sourceValue(p, r, rule, later));
  if ('lookup' in s) {
    const key = String(cell(s.lookup));
    return Object.hasOwn(s.table, key) ? s.table[key] : s.otherwise;
  }
  if ('firstRevision' in s) return sourceValue(later ? s.later : s.firstRevision, r, rule, later);
  if ('perRule' in s) return s.perRule(rule);
  return undefined;
}

/**
 * The mapping of one source object as a plain object, nulls still in: its first revision, or (`later`) a
 * later one, as the view maps the first stored row of a finding and each row after it.
 */
export function mappedValue<Row, Rule>(
  fields: readonly MappedField<Row, Rule>[],
  r: Row,
  rule: Rule,
  later = false,
): Record<string, unknown> {
  return Object.fromEntries(
    fields.map((m) => [
      m.name,
      'fields' in m ? mappedValue(m.fields, r, rule, later) : sourceValue(m.from, r, rule, later),
    ]),
  );
}
