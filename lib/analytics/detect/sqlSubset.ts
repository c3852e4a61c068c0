import { dialectIssues, stripCommentsAndStrings } from '../sql/dialectIssues.ts';
import { sessionsSql } from './renderRuleSql.ts';

/** Table references a rule may read (unqualified, as the Athena database is the query context). */
const TABLE_REF = /\b(?:from|join)\s+(tunnel_[a-z_]+)/gi;
const DT_FILTER = /\bdt\s*>=\s*'\{\{(?:since|baseline_since)\}\}'/gi;
/** A rule reads no clock of its engine: the runner's window makes a run repeatable. */
const CLOCK = /\bcurrent_(date|timestamp)\b|\bnow\s*\(/i;

/**
 * What in `sql` (a rule's template) is outside the subset both engines agree on (lib/analytics/sql/dialect.ts:
 * functions not shared, constructs that differ), a read of the engine's clock, and reads of a table without a `dt >= {{since}}`
 * (or `{{baseline_since}}`) filter for Athena's partition pruning. Empty = inside the subset.
 */
export function checkSqlSubset(template: string): string[] {
  const sql = template
    .replaceAll('{{sessions}}', () => sessionsSql({}))
    .replaceAll('{{baseline_sessions}}', () => sessionsSql({}, 'baseline_since'));
  const code = stripCommentsAndStrings(sql);
  const issues = dialectIssues(code);
  if (CLOCK.test(code)) issues.push('the clock belongs to the runner: use {{since}} / {{until}}');
  const tables = [...code.matchAll(TABLE_REF)].length;
  const filters = [...sql.matchAll(DT_FILTER)].length;
  if (tables === 0) issues.push('reads no tunnel_* table');
  if (filters < tables)
    issues.push(`reads ${tables} table(s) but filters dt >= '{{since}}' only ${filters} time(s)`);
  return [...new Set(issues)];
}
