import { HISTORY_COLUMNS } from '../../archive/index.ts';
import { addDays, type Day, ManualClock, silentLogger } from '../../foundation/index.ts';
import { ACTIVE_TABLE, HISTORY_TABLE } from '../query/activeViews.ts';
import { emptyTableSql } from '../query/localViews.ts';
import { sqlString } from '../query/sqlString.ts';
import { duckdbType } from '../sql/duckdbSpelling.ts';
import { loadTrinoGrammar, type TrinoGrammar } from '../sql/trinoGrammar.ts';
import { duckdbRuleEngine } from './duckdbRuleEngine.ts';
import { type EvaluateOptions, evaluateRules } from './evaluateRules.ts';
import { memoryFindingLedger } from './findingLedger.ts';
import type { DetectionRule, RuleTest } from './ruleSchema.ts';
import type { DetectionSettings } from './ruleSettings.ts';
import { trinoRuleErrors } from './trinoRuleErrors.ts';

export interface RuleTestResult {
  rule: string;
  test: string;
  ok: boolean;
  /** What differed (empty when ok). */
  message: string;
}

type Cell = string | number | string[] | null;
const COLUMNS = [...HISTORY_COLUMNS, { name: 'dt', athenaType: 'string' }];

function literal(value: Cell, athenaType: string): string {
  const type = duckdbType(athenaType);
  if (value === null) return `CAST(NULL AS ${type})`;
  if (Array.isArray(value)) return `CAST([${value.map(sqlString).join(', ')}] AS VARCHAR[])`;
  return `CAST(${typeof value === 'number' ? value : sqlString(value)} AS ${type})`;
}

/** A yml test row with every history column: defaults for what the test leaves out. */
function fullRow(row: Record<string, Cell>, i: number): Record<string, Cell> {
  const start = String(row.start_time ?? '2026-03-01T00:00:00Z');
  const end = new Date(Date.parse(start) + 5 * 60_000).toISOString();
  const address = row.client_address ?? '192.0.2.10';
  return {
    record_id: `r${String(i).padStart(3, '0')}`,
    session_id: `s${String(i).padStart(3, '0')}`,
    end_time: end,
    user_email: 'user@example.com',
    domains: [],
    mode: 'http',
    mode_udp: '',
    client_ip: `[${address}]:40000`,
    client_address: address,
    archived_at: start,
    dt: start.slice(0, 10),
    ...row,
    start_time: start,
  };
}

/** The yml test's rows as the `tunnel_sessions` table (typed like the Glue table). */
export function testTableSql(rows: readonly Record<string, Cell>[]): string {
  const names = COLUMNS.map((c) => c.name).join(', ');
  const tuples = rows.map((r, i) => {
    const full = fullRow(r, i);
    return `(${COLUMNS.map((c) => literal(full[c.name] ?? null, c.athenaType)).join(', ')})`;
  });
  const body =
    tuples.length === 0
      ? `SELECT ${COLUMNS.map((c) => `${literal(null, c.athenaType)} AS ${c.name}`).join(', ')} WHERE false`
      : `SELECT * FROM (VALUES ${tuples.join(',\n')}) v(${names})`;
  return `CREATE OR REPLACE TABLE ${HISTORY_TABLE} AS ${body}`;
}

/** No live sessions: `active/` empty, for rule runs over history rows alone. */
export const NO_LIVE_SESSIONS_SQL = emptyTableSql(ACTIVE_TABLE);

function compare(test: RuleTest, found: Map<string, number>): string {
  const problems: string[] = [];
  for (const want of test.findings) {
    const hits = found.get(want.entity);
    if (hits === undefined) problems.push(`missing finding ${want.entity}`);
    else if (want.hits !== undefined && hits !== want.hits)
      problems.push(`${want.entity}: hits ${hits}, expected ${want.hits}`);
  }
  for (const entity of found.keys()) {
    if (!test.findings.some((f) => f.entity === entity)) problems.push(`unexpected finding ${entity}`);
  }
  return problems.join('; ');
}

/** How a yml test evaluates its rule: its days (or the rows' days), its settings, at the day after them. */
export function ruleTestEvaluation(
  rule: DetectionRule,
  test: RuleTest,
): { at: Date; options: EvaluateOptions & { since: Day; until: Day } } {
  const days = test.rows.map((r) => String(r.start_time ?? '2026-03-01').slice(0, 10)).sort();
  const since = test.since ?? days[0] ?? '2026-03-01';
  const until = test.until ?? days.at(-1) ?? since;
  const overrides: DetectionSettings = { settings: {}, rules: { [rule.id]: test.settings ?? {} } };
  return {
    at: new Date(`${addDays(until, 1)}T00:00:00Z`),
    options: { rules: [rule], overrides, since, until },
  };
}

/** The result name of a rule's grammar check. */
export const TRINO_CHECK = 'parses as Trino SQL, as Athena receives it';

/**
 * Runs every yml test of `rules` in one in-memory DuckDB: each test's rows become `tunnel_sessions`,
 * the rule runs over the test's days (or the rows' days) with the test's settings, and the findings
 * must be exactly the listed ones. Each rule's SQL, as Athena receives it, must also parse with
 * Trino's grammar (`grammar`, by default dt-sql-parser's): DuckDB accepts what Athena refuses (a `::`
 * cast, a trailing comma, a list literal).
 */
export async function runRuleTests(
  rules: readonly DetectionRule[],
  grammar?: TrinoGrammar,
): Promise<RuleTestResult[]> {
  const trino = grammar ?? (await loadTrinoGrammar());
  const engine = await duckdbRuleEngine([NO_LIVE_SESSIONS_SQL]);
  const results: RuleTestResult[] = [];
  try {
    for (const rule of rules) {
      const errors = trinoRuleErrors(rule, trino);
      results.push({ rule: rule.id, test: TRINO_CHECK, ok: errors.length === 0, message: errors.join('; ') });
      for (const test of rule.tests) {
        await engine.run(testTableSql(test.rows as Record<string, Cell>[]));
        const { at, options } = ruleTestEvaluation(rule, test);
        const { findings } = await evaluateRules(
          { engine, ledger: memoryFindingLedger(), clock: new ManualClock(at), logger: silentLogger },
          options,
        );
        const found = new Map(findings.map((f) => [f.entity, f.hits]));
        const message = compare(test, found);
        results.push({ rule: rule.id, test: test.name, ok: message === '', message });
      }
    }
  } finally {
    engine.close();
  }
  return results;
}
