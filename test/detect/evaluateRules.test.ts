import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DuckDbRuleEngine, duckdbRuleEngine } from '../../lib/analytics/detect/duckdbRuleEngine.ts';
import { evaluateRules, toCandidates } from '../../lib/analytics/detect/evaluateRules.ts';
import { dedupeKeyOf, type Finding } from '../../lib/analytics/detect/finding.ts';
import { type FindingLedger, memoryFindingLedger } from '../../lib/analytics/detect/findingLedger.ts';
import { RECORD_ID_SAMPLE } from '../../lib/analytics/detect/incidentLedger.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import {
  ATHENA_PROJECTION,
  projectRule,
  type RuleEngine,
  toRuleHit,
} from '../../lib/analytics/detect/ruleEngine.ts';
import type { DetectionRule, RuleTest } from '../../lib/analytics/detect/ruleSchema.ts';
import {
  NO_LIVE_SESSIONS_SQL,
  ruleTestEvaluation,
  testTableSql,
} from '../../lib/analytics/detect/runRuleTests.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import type { Day } from '../../lib/foundation/clock/day.ts';
import { mix32 } from '../../lib/foundation/ids/mix32.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';

type Row = Record<string, unknown>;
interface Case {
  name: string;
  rule: DetectionRule;
  test: RuleTest;
}

const rules = await loadRules();
const udp = rules.find((r) => r.id === 'udp_tunnel');
if (!udp) throw new Error('detections/ has no udp_tunnel');
/**
 * One token's 250 UDP sessions at 5 instants, each from another network: rows that tie on their times,
 * and more ids than a finding keeps.
 */
const TIED: RuleTest = {
  name: 'sessions that start together',
  rows: Array.from({ length: 250 }, (_, i) => ({
    session_id: `t${i}`,
    token_hmac: 'tok-t',
    mode_udp: 'udp',
    start_time: `2026-03-01T1${i % 5}:00:00Z`,
    client_address: `10.${i % 50}.0.1`,
  })),
  findings: [{ entity: 'tok-t' }],
};
/** Every rule's positive yml tests (each with its days and settings), and the tied sessions. */
const CASES: Case[] = [
  ...rules.flatMap((rule) =>
    rule.tests
      .filter((t) => t.findings.length > 0)
      .map((test) => ({ name: `${rule.id}: ${test.name}`, rule, test })),
  ),
  { name: `udp_tunnel: ${TIED.name}`, rule: udp, test: TIED },
];

let duck: DuckDbRuleEngine;
/** What each case's rule returned from DuckDB, and the archive's oldest day (for the warm-up). */
const captured = new Map<string, { rows: Row[]; oldest: Day | undefined; sql: string[] }>();

const loadCase = (c: Case) => duck.run(testTableSql(c.test.rows as never));

beforeAll(async () => {
  // Athena's array_join, for running Athena's projection here.
  duck = await duckdbRuleEngine([
    NO_LIVE_SESSIONS_SQL,
    'CREATE MACRO array_join(a, s) AS array_to_string(a, s)',
  ]);
  for (const c of CASES) {
    await loadCase(c);
    const rows: Row[] = [];
    const sqls: string[] = [];
    const recording: RuleEngine = {
      oldestDay: () => duck.oldestDay(),
      runRule: async (sql) => {
        sqls.push(sql);
        const out = await duck.runRule(sql);
        rows.push(...out);
        return out;
      },
    };
    await evaluate(recording, memoryFindingLedger(), c, 0);
    captured.set(c.name, { rows, oldest: await duck.oldestDay(), sql: sqls });
  }
});
afterAll(() => duck.close());

/** An engine that returns `rows` (a rule's rows as an engine delivered them). */
const replaying = (rows: readonly Row[], oldest: Day | undefined): RuleEngine => ({
  oldestDay: async () => oldest,
  runRule: async () => rows.map((r) => ({ ...r })),
});

/** The case's evaluation: at its instant plus `laterMs`, the clock `clockMs` after that instant. */
async function evaluate(engine: RuleEngine, ledger: FindingLedger, c: Case, clockMs: number, laterMs = 0) {
  const { at, options } = ruleTestEvaluation(c.rule, c.test);
  const instant = new Date(at.getTime() + laterMs);
  const written: Finding[] = [];
  const result = await evaluateRules(
    {
      engine,
      ledger,
      clock: new ManualClock(new Date(instant.getTime() + clockMs)),
      logger: silentLogger,
      commitFindings: async (f) => void written.push(...f),
    },
    { ...options, at: instant },
  );
  return { ...result, written };
}

/** `items` in the order a seed picks. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = mix32(s + 0x9e3779b9);
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The rows in another order, the ids of each in another order. */
const reordered = (rows: readonly Row[], seed: number): Row[] =>
  shuffled(rows, seed).map((r, i) => ({
    ...r,
    record_ids: Array.isArray(r.record_ids) ? shuffled(r.record_ids, seed + i + 1) : r.record_ids,
  }));

const capturedOf = (c: Case) => {
  const held = captured.get(c.name);
  if (!held || held.rows.length === 0) throw new Error(`${c.name}: the rule returned no rows`);
  return held;
};

describe('evaluateRules', () => {
  it.each(CASES)(
    '$name: the same evaluation twice (the same instant, a later clock) writes no revision',
    async (c) => {
      await loadCase(c);
      const ledger = memoryFindingLedger();
      const first = await evaluate(duck, ledger, c, 400);
      const again = await evaluate(duck, ledger, c, 900);
      expect(first.written.length).toBeGreaterThan(0);
      expect(again.written).toEqual([]);
      expect([...again.delivered, ...again.updated]).toEqual([]);
      const state = (r: typeof first) => r.findings.map((f) => `${f.finding_id} ${f.revision}`).sort();
      expect(state(again)).toEqual(state(first));
    },
  );

  it.each(CASES)(
    '$name: the same rows in another order, their ids in another order, write no revision',
    async (c) => {
      const { rows, oldest } = capturedOf(c);
      const ledger = memoryFindingLedger();
      const first = await evaluate(replaying(rows, oldest), ledger, c, 0);
      expect(first.written.length).toBeGreaterThan(0);
      await fc.assert(
        fc.asyncProperty(fc.nat(), async (seed) => {
          const again = await evaluate(replaying(reordered(rows, seed), oldest), ledger, c, 1_000);
          expect(again.written).toEqual([]);
          expect([...again.delivered, ...again.updated]).toEqual([]);
        }),
        { numRuns: 20 },
      );
    },
  );

  it.each(CASES)('$name: a new session still writes exactly one revision, then none', async (c) => {
    const { rows, oldest } = capturedOf(c);
    const ledger = memoryFindingLedger();
    await evaluate(replaying(rows, oldest), ledger, c, 0);
    // One more session in the latest row's incident, a minute after its last activity.
    const latest = [...rows].sort((a, b) => Number(b.last_seen_ms) - Number(a.last_seen_ms))[0] ?? {};
    const added: Row = {
      ...latest,
      last_seen_ms: Number(latest.last_seen_ms) + 60_000,
      record_ids: ['zz-new-session'],
    };
    const key = dedupeKeyOf(c.rule.id, c.rule.dedupe.key, toRuleHit(c.rule.id, latest));
    const more = [...rows, added];
    const changed = await evaluate(replaying(reordered(more, 7), oldest), ledger, c, 60_000, 60_000);
    expect(changed.written.map((f) => `${f.dedupe_key} ${f.revision}`)).toEqual([`${key} 1`]);
    expect(changed.written[0]?.record_count).toBeGreaterThan(0);
    expect(changed.updated).toHaveLength(1);
    expect(changed.delivered).toEqual([]);
    const settled = await evaluate(replaying(reordered(more, 8), oldest), ledger, c, 120_000, 60_000);
    expect(settled.written).toEqual([]);
  });

  it('stores a sample of the ids (the same whatever their order) and the count of all of them', async () => {
    const c = CASES.at(-1) as Case;
    const { rows, oldest } = capturedOf(c);
    const stored = async (seed: number) =>
      (await evaluate(replaying(reordered(rows, seed), oldest), memoryFindingLedger(), c, 0)).written;
    const [a] = await stored(1);
    const [b] = await stored(2);
    expect(a?.record_count).toBe(250);
    expect(a?.record_ids).toHaveLength(RECORD_ID_SAMPLE);
    expect(b?.record_ids).toEqual(a?.record_ids);
    expect(b?.client_network).toBe(a?.client_network);
    expect(b?.session_id).toBe(a?.session_id);
  });

  it('a tunnel still open, evaluated an hour later, is one revision (it lasted longer)', async () => {
    const c = CASES.find((x) => x.rule.id === 'long_tunnel' && x.test.rows.some((r) => r.end_time === null));
    if (!c) throw new Error('long_tunnel has no yml test of an open tunnel');
    await loadCase(c);
    const ledger = memoryFindingLedger();
    const first = await evaluate(duck, ledger, c, 0);
    const later = await evaluate(duck, ledger, c, 0, 3_600_000);
    expect(later.written.map((f) => f.revision)).toEqual([1]);
    expect(+(later.written[0]?.last_seen ?? 0) - +(first.written[0]?.last_seen ?? 0)).toBe(3_600_000);
  });
});

/** The ids of a projected row: a list (DuckDB) or joined by commas (Athena's text results). */
const idsOf = (r: Row) => (Array.isArray(r.record_ids) ? r.record_ids : String(r.record_ids).split(','));
/** A projected row's values whatever the engine's spelling (numbers as bigint or text, ids as a list or text). */
const comparable = (r: Row) => ({
  entity: r.entity,
  token_hmac: r.token_hmac ?? null,
  client_network: r.client_network ?? null,
  session_id: r.session_id ?? null,
  first_seen_ms: Number(r.first_seen_ms),
  last_seen_ms: Number(r.last_seen_ms),
  hits: Number(r.hits),
  record_ids: idsOf(r),
});

describe('projectRule', () => {
  it.each(CASES)('$name: both engines return the rows in one order, the ids of each sorted', async (c) => {
    const { rows, sql } = capturedOf(c);
    await loadCase(c);
    const athena = (await Promise.all(sql.map((q) => duck.query(projectRule(q, ATHENA_PROJECTION))))).flat();
    for (const out of [rows, athena]) {
      expect(out).toHaveLength(rows.length);
      for (const r of out) expect(idsOf(r)).toEqual([...idsOf(r)].sort());
      const order = out.map((r) => `${r.entity} ${String(r.first_seen_ms).padStart(15, '0')}`);
      expect(order).toEqual([...order].sort());
    }
    // Row for row, the same values: the Athena projection's rows are the DuckDB engine's.
    expect(athena.map(comparable)).toEqual(rows.map(comparable));
  });
});

describe('toCandidates', () => {
  it.each(CASES)(
    '$name: the same rows in any order, their ids in any order, give the same candidates',
    (c) => {
      const { rows } = capturedOf(c);
      const { at } = ruleTestEvaluation(c.rule, c.test);
      const hits = (rs: readonly Row[]) => rs.map((r) => toRuleHit(c.rule.id, r));
      const expected = toCandidates(c.rule, hits(rows), at, 'scheduled');
      fc.assert(
        fc.property(fc.nat(), (seed) => {
          // Ids shuffled after the engine's row is read too: the live rules hand their hits over directly.
          const given = hits(reordered(rows, seed)).map((h, i) => ({
            ...h,
            record_ids: shuffled(h.record_ids, seed ^ i),
          }));
          expect(toCandidates(c.rule, given, at, 'scheduled')).toEqual(expected);
        }),
        { numRuns: 50 },
      );
    },
  );
});
