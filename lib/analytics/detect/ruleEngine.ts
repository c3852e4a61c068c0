import * as z from 'zod';
import { ArchiverError, type Day } from '../../foundation/index.ts';
import { HISTORY_TABLE } from '../query/activeViews.ts';
import { epochMsSql } from '../sql/dialect.ts';
import type { RuleHit } from './finding.ts';

/**
 * Runs a rendered rule and returns its rows with times as epoch milliseconds: DuckDB locally
 * (`duckdbRuleEngine`), Athena in AWS (functions/detect). Each adapter wraps the rule in its own
 * projection for the times; the rule's SQL is the same.
 */
export interface RuleEngine {
  runRule(sql: string): Promise<Record<string, unknown>[]>;
  /** The archive's oldest day of history (the warm-up of rules with a baseline), or undefined when empty. */
  oldestDay(): Promise<Day | undefined>;
}

/** The query behind `oldestDay`, the same in both engines (a partition column: cheap in Athena). */
export const OLDEST_DAY_SQL = `SELECT min(dt) AS oldest FROM ${HISTORY_TABLE} WHERE dt >= '1970-01-01'`;

const epochMs = z.union([z.number(), z.string(), z.bigint()]).transform((v) => new Date(Number(v)));
const count = z.union([z.number(), z.string(), z.bigint()]).transform((v) => Number(v));
const text = z.string().nullable();

const ruleRowSchema = z.object({
  entity: z.string(),
  token_hmac: text,
  client_network: text,
  session_id: text,
  first_seen_ms: epochMs,
  last_seen_ms: epochMs,
  hits: count,
  // A list (DuckDB), or the ids joined by commas (Athena's text results).
  record_ids: z.union([z.array(z.string()), z.string().transform((s) => (s === '' ? [] : s.split(',')))]),
});

/** How an engine spells a time as epoch ms, and the ids as a value its results can carry. */
export interface Projection {
  epochMs: (column: string) => string;
  ids: (column: string) => string;
}

/** Athena's projection (Trino): epoch ms from `to_unixtime`, the ids sorted and joined by commas (it skips nulls). */
export const ATHENA_PROJECTION: Projection = {
  epochMs: epochMsSql,
  ids: (c) => `array_join(array_sort(${c}), ',')`,
};

/**
 * The projection both engines put around a rule: every column a finding needs, times as epoch ms, in
 * one order (rows and their ids), whatever order the engine's parallel aggregation produced.
 */
export function projectRule(sql: string, p: Projection): string {
  return `SELECT entity, token_hmac, client_network, session_id, ${p.epochMs('first_seen')} AS first_seen_ms,
  ${p.epochMs('last_seen')} AS last_seen_ms, hits, ${p.ids('record_ids')} AS record_ids
FROM (
${sql}
) rule_rows
ORDER BY entity, first_seen_ms, last_seen_ms, token_hmac, client_network, session_id, hits, record_ids`;
}

/** A rendered rule as Athena receives it (`athenaRuleEngine`): inside Athena's projection. */
export const athenaRuleSql = (rendered: string): string => projectRule(rendered, ATHENA_PROJECTION);

/** An engine's row as a `RuleHit`; a rule that returns other columns is `CONFIG_INVALID`. */
export function toRuleHit(ruleId: string, row: Record<string, unknown>): RuleHit {
  const parsed = ruleRowSchema.safeParse(row);
  if (!parsed.success) {
    throw new ArchiverError('CONFIG_INVALID', `rule ${ruleId} returned a row without the finding columns`, {
      cause: parsed.error,
    });
  }
  const r = parsed.data;
  return {
    entity: r.entity,
    token_hmac: r.token_hmac,
    client_network: r.client_network,
    session_id: r.session_id,
    first_seen: r.first_seen_ms,
    last_seen: r.last_seen_ms,
    hits: r.hits,
    record_ids: [...r.record_ids].sort(),
  };
}
