import {
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  type GetQueryResultsCommandOutput,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { athenaRuleEngine } from '../../../functions/detect/athenaRuleEngine.ts';
import { createDetectHandler } from '../../../functions/detect/detectHandler.ts';
import { type DuckDbRuleEngine, duckdbRuleEngine } from '../../../lib/analytics/detect/duckdbRuleEngine.ts';
import type { Finding } from '../../../lib/analytics/detect/finding.ts';
import { FINDING_DETAIL_TYPE, memoryFindingEvents } from '../../../lib/analytics/detect/findingEvents.ts';
import { memoryFindingLedger } from '../../../lib/analytics/detect/findingLedger.ts';
import { loadRules } from '../../../lib/analytics/detect/loadRules.ts';
import { NO_LIVE_SESSIONS_SQL, testTableSql } from '../../../lib/analytics/detect/runRuleTests.ts';
import { ManualClock } from '../../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../../lib/foundation/log/logger.ts';

const rules = await loadRules();
/** Each rule's first positive yml test (without settings or days of its own). */
const positive = rules.flatMap((r) =>
  r.tests.filter((t) => t.findings.length > 0 && !t.settings && !t.since && !t.until).slice(0, 1),
);
let duck: DuckDbRuleEngine;

beforeAll(async () => {
  // The Athena functions the engine's projection uses, for this stand-in only.
  duck = await duckdbRuleEngine([
    testTableSql(positive.flatMap((t) => t.rows) as never),
    NO_LIVE_SESSIONS_SQL,
    'CREATE MACRO array_join(a, s) AS array_to_string(a, s)',
  ]);
});
afterAll(() => duck.close());

/**
 * An Athena stand-in with its API's shape: queries queue, run, then succeed; results come back as
 * text cells, a header row first, two rows per page with NextToken. It runs the SQL in DuckDB.
 */
function fakeAthena(db: () => DuckDbRuleEngine) {
  const queries = new Map<string, { sql: string; polls: number; rows?: Record<string, unknown>[] }>();
  const calls: string[] = [];
  return {
    calls,
    async send(command: unknown): Promise<unknown> {
      if (command instanceof StartQueryExecutionCommand) {
        const { QueryString, WorkGroup, QueryExecutionContext } = command.input;
        calls.push(`start ${WorkGroup} ${QueryExecutionContext?.Database}`);
        const id = `q${queries.size}`;
        queries.set(id, { sql: QueryString ?? '', polls: 0 });
        return { QueryExecutionId: id };
      }
      if (command instanceof GetQueryExecutionCommand) {
        const q = queries.get(command.input.QueryExecutionId ?? '');
        if (!q) throw new Error('no such query');
        q.polls++;
        const state = q.polls === 1 ? 'QUEUED' : q.polls === 2 ? 'RUNNING' : 'SUCCEEDED';
        if (state === 'SUCCEEDED') q.rows ??= await db().query(q.sql);
        return { QueryExecution: { Status: { State: state } } };
      }
      if (command instanceof GetQueryResultsCommand) {
        const q = queries.get(command.input.QueryExecutionId ?? '');
        const rows = q?.rows ?? [];
        const start = Number(command.input.NextToken ?? 0);
        const cols = [
          'entity',
          'token_hmac',
          'client_network',
          'session_id',
          'first_seen_ms',
          'last_seen_ms',
          'hits',
          'record_ids',
        ];
        const cell = (v: unknown) => (v === null || v === undefined ? {} : { VarCharValue: String(v) });
        const page = rows.slice(start, start + 2).map((r) => ({ Data: cols.map((c) => cell(r[c])) }));
        const out: Partial<GetQueryResultsCommandOutput> = {
          ResultSet: {
            Rows: start === 0 ? [{ Data: cols.map((c) => ({ VarCharValue: c })) }, ...page] : page,
          },
          ...(start + 2 < rows.length ? { NextToken: String(start + 2) } : {}),
        };
        return out;
      }
      throw new Error('unexpected command');
    },
  };
}

function world(clock = new ManualClock('2026-03-02T12:00:00Z'), db = () => duck) {
  const athena = fakeAthena(db);
  const published: { subject: string; message: string }[] = [];
  const committed: Finding[] = [];
  const counted: string[] = [];
  const metrics: string[] = [];
  const sleeps: number[] = [];
  const ledger = memoryFindingLedger();
  const events = memoryFindingEvents();
  const handler = createDetectHandler({
    rules,
    overrides: { settings: {}, rules: {} },
    engine: athenaRuleEngine(athena, {
      workGroup: 'tunnel-archiver',
      database: 'tunnel_archive',
      sleep: async (ms) => void sleeps.push(ms),
    }),
    ledger: () => ledger,
    commitFindings: async (f) => void committed.push(...f),
    publish: async (subject, message) => void published.push({ subject, message }),
    events,
    countFindings: (metric, rule, severity, n) => void counted.push(`${metric} ${rule} ${severity} ${n}`),
    metrics: { addMetric: (n, _u, v) => metrics.push(`${n}=${v}`), publishStoredMetrics: () => {} },
    clock,
    logger: silentLogger,
    tickMs: 5 * 60_000,
    runId: () => 'run-1',
  });
  return { athena, handler, published, committed, counted, metrics, sleeps, events: events.events };
}

const asked = ['long_tunnel', 'udp_tunnel', 'shared_client_address', 'short_session_burst'];

describe('createDetectHandler (Lambda polling Athena)', () => {
  it('runs the due rules in the workgroup, polls, pages, and publishes each finding with runbook and SQL', async () => {
    const w = world();
    const result = await w.handler({ rules: asked });
    expect(result.due.sort()).toEqual([...asked].sort());
    expect(w.athena.calls).toEqual(asked.map(() => 'start tunnel-archiver tunnel_archive'));
    expect(w.sleeps.length).toBe(2 * asked.length);
    expect(result.findings.map((f) => `${f.rule_id}:${f.entity}`).sort()).toEqual(
      [
        'long_tunnel:s-long',
        'shared_client_address:198.51.100.7',
        'short_session_burst:tok-a',
        'udp_tunnel:tok-a',
      ].sort(),
    );
    expect(result.findings.find((f) => f.rule_id === 'short_session_burst')?.record_ids).toHaveLength(5);
    expect(w.committed).toHaveLength(4);
    expect(w.published).toHaveLength(4);
    const msg = JSON.parse(w.published.find((p) => p.subject.includes('s-long'))?.message ?? '{}');
    expect(msg.runbook).toBe(rules.find((r) => r.id === 'long_tunnel')?.runbook);
    expect(msg.rows_sql).toMatch(
      /^SELECT \* FROM tunnel_sessions WHERE dt >= '2026-02-28' AND dt <= '2026-03-02' AND .* AND \(session_id = 's-long'\) ORDER BY start_time$/,
    );
    expect(msg.record_count).toBe(1);
    expect(w.events.map((e) => e.detailType)).toEqual(asked.map(() => FINDING_DETAIL_TYPE));
    expect(w.events.map((e) => JSON.parse(e.detail).status)).toEqual(asked.map(() => 'new'));
    expect(JSON.parse(w.events[0]?.detail ?? '{}').ocsf).toMatchObject({ class_uid: 2004 });
    expect(msg.ocsf).toMatchObject({
      class_uid: 2004,
      severity_id: 3,
      finding_info: { analytic: { uid: 'long_tunnel' } },
    });
    expect(w.counted).toContain('NewFindings udp_tunnel low 1');
    expect(w.counted).toContain('Findings long_tunnel medium 1');
    expect(w.metrics).toEqual(['EvaluationSucceeded=1']);
  });

  it('publishes nothing the second time (the same incidents), and runs on schedule only the rules that are due', async () => {
    const w = world();
    await w.handler({ rules: asked });
    const again = await w.handler({ rules: asked });
    expect(again.findings).toHaveLength(4);
    expect(w.published).toHaveLength(4);
    expect(w.events).toHaveLength(4);
    const scheduled = await w.handler({ source: 'aws.events' });
    expect(scheduled.due.sort()).toEqual(
      rules
        .filter((r) => r.schedule === '1h')
        .map((r) => r.id)
        .sort(),
    );
  });
});

describe('createDetectHandler (a scheduled event)', () => {
  it('evaluates at the tick the event stands for: its retry, later, writes nothing, though a tunnel is still open', async () => {
    const open = await duckdbRuleEngine([
      testTableSql([
        { session_id: 's-open', token_hmac: 'tok-o', start_time: '2026-03-01T06:00:00Z', end_time: null },
      ]),
      NO_LIVE_SESSIONS_SQL,
      'CREATE MACRO array_join(a, s) AS array_to_string(a, s)',
    ]);
    try {
      const clock = new ManualClock('2026-03-02T12:00:07Z');
      const w = world(clock, () => open);
      const long = () => w.committed.filter((f) => f.rule_id === 'long_tunnel');
      const tick = { source: 'aws.events', 'detail-type': 'Scheduled Event', time: '2026-03-02T12:00:00Z' };
      const first = await w.handler(tick);
      expect(first.due).toContain('long_tunnel');
      expect(long().map((f) => `${f.entity} ${f.revision} ${f.last_seen.toISOString()}`)).toEqual([
        's-open 0 2026-03-02T12:00:00.000Z',
      ]);
      // Lambda retries the same event three minutes later: the same instant, the same incident.
      clock.advance(180_000);
      const written = w.committed.length;
      await w.handler(tick);
      expect(w.committed).toHaveLength(written);
      // The next tick sees the tunnel an hour older: one revision.
      clock.advance(3_600_000);
      await w.handler({ ...tick, time: '2026-03-02T13:00:00Z' });
      expect(long().map((f) => `${f.entity} ${f.revision}`)).toEqual(['s-open 0', 's-open 1']);
      expect(w.published).toHaveLength(written);
    } finally {
      open.close();
    }
  });
});
