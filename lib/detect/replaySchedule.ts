import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../clock/clock.ts';
import { silentLogger } from '../log/logger.ts';
import { HISTORY_COLUMNS } from '../parquet/historySchema.ts';
import { HISTORY_TABLE } from '../query/activeViews.ts';
import type { ActiveObservations } from '../state/stateStore.ts';
import { duckdbRuleEngine } from './duckdbRuleEngine.ts';
import { type DeliveryStatus, evaluateRules, recordIncidents } from './evaluateRules.ts';
import type { Finding } from './finding.ts';
import { type FindingLedger, memoryFindingLedger } from './findingLedger.ts';
import { evaluateLiveRules } from './liveRules.ts';
import type { DetectionRule } from './ruleSchema.ts';
import type { DetectionSettings } from './ruleSettings.ts';
import { NO_LIVE_SESSIONS_SQL } from './runRuleTests.ts';

/** One tunnel of the replayed traffic: `end` null while it is open (to the end of the replay). */
export interface ReplaySession {
  session_id: string;
  token_hmac: string;
  client_address: string;
  start: Date;
  end: Date | null;
  mode_udp?: string;
  domains?: string[];
}

export interface Delivery {
  at: Date;
  finding: Finding;
  status: DeliveryStatus;
  /** The message as delivered (`new` ones: what SNS would carry), when `message` was given. */
  bytes?: number;
}

export interface ReplayOptions {
  sessions: readonly ReplaySession[];
  from: Date;
  until: Date;
  rules: readonly DetectionRule[];
  overrides: DetectionSettings;
  /** The detect schedule (default 1 h) and the live rules' snapshot period (default 15 min; 0: none). */
  detectEveryMs?: number;
  snapshotEveryMs?: number;
  /** Where in the detect period the evaluations fall (default 0: on the period's boundaries, UTC). */
  detectAtMs?: number;
  /** Lets a delivery fail (a crash between claim and publish): true = throw before publishing. */
  failDelivery?: (finding: Finding, attempt: number) => boolean;
  /** The size of what would be sent for a delivery (e.g. the SNS message). */
  message?: (finding: Finding, rule: DetectionRule) => number;
  ledger?: FindingLedger;
}

const MIN = 60_000;
/** An open session's first history row is archived this long after it starts; a closed one's after its end. */
const OPEN_ROW_AFTER = 20 * MIN;
const CLOSED_ROW_AFTER = 30 * MIN;

const CRASH = 'stopped between claim and publish';
const DUCK_TYPE: Record<string, string> = {
  string: 'VARCHAR',
  timestamp: 'TIMESTAMPTZ',
  int: 'INTEGER',
  'array<string>': 'VARCHAR[]',
};

type Row = Record<string, string | number | string[] | null>;

/**
 * History as the archiver writes it: a session longer than 20 minutes (or still open) first as an
 * open revision (no end), then, once it ended, a closed revision with a new record id; each row
 * visible from its `archived_at`.
 */
export function historyRows(sessions: readonly ReplaySession[]): Row[] {
  const rows: Row[] = [];
  for (const s of sessions) {
    const base: Row = {
      session_id: s.session_id,
      user_email: 'team@example.com',
      client_ip: `[${s.client_address}]:40000`,
      dt: s.start.toISOString().slice(0, 10),
      token_hmac: s.token_hmac,
      client_address: s.client_address,
      start_time: s.start.toISOString(),
      mode_udp: s.mode_udp ?? '',
      mode: s.mode_udp ? 'tcp' : 'http',
      domains: s.domains ?? [],
    };
    const lasts = s.end === null ? Number.POSITIVE_INFINITY : s.end.getTime() - s.start.getTime();
    if (lasts > OPEN_ROW_AFTER)
      rows.push({
        ...base,
        record_id: `${s.session_id}-r1`,
        end_time: null,
        archived_at: new Date(s.start.getTime() + OPEN_ROW_AFTER).toISOString(),
      });
    if (s.end !== null)
      rows.push({
        ...base,
        record_id: `${s.session_id}-r2`,
        end_time: s.end.toISOString(),
        archived_at: new Date(s.end.getTime() + CLOSED_ROW_AFTER).toISOString(),
      });
  }
  return rows;
}

/**
 * Replays traffic as deployed: `detect` on its schedule over the history archived so far (each
 * evaluation sees the rows whose `archived_at` has passed), and the live rules on snapshots of the
 * sessions open at each snapshot; one ledger for both. Returns every delivery.
 */
export async function replaySchedule(
  opts: ReplayOptions,
): Promise<{ deliveries: Delivery[]; evaluations: number }> {
  const detectEvery = opts.detectEveryMs ?? 60 * MIN;
  const snapshotEvery = opts.snapshotEveryMs ?? 15 * MIN;
  const folder = await mkdtemp(join(tmpdir(), 'ta-replay-'));
  const file = join(folder, 'history.ndjson');
  await writeFile(
    file,
    historyRows(opts.sessions)
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  // NDJSON read by DuckDB with the Glue table's types (a VALUES list of thousands of rows is slow to plan).
  const columns = [...HISTORY_COLUMNS, { name: 'dt', athenaType: 'string' }]
    .map((c) => `${c.name}: '${DUCK_TYPE[c.athenaType] ?? 'VARCHAR'}'`)
    .join(', ');
  const engine = await duckdbRuleEngine([
    NO_LIVE_SESSIONS_SQL,
    `CREATE TABLE replay_rows AS SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = {${columns}})`,
  ]);
  const ledger = opts.ledger ?? memoryFindingLedger('replay');
  const deliveries: Delivery[] = [];
  const attempts = new Map<string, number>();
  let evaluations = 0;
  const deliver = (at: Date) => async (finding: Finding, rule: DetectionRule, status: DeliveryStatus) => {
    const n = (attempts.get(finding.finding_id) ?? 0) + 1;
    attempts.set(finding.finding_id, n);
    if (opts.failDelivery?.(finding, n)) throw new Error(CRASH);
    deliveries.push({ at, finding, status, ...(opts.message ? { bytes: opts.message(finding, rule) } : {}) });
  };
  const live = opts.rules.filter((r) => r.live);
  // A crash between claim and publish stops that evaluation; anything else fails the replay.
  const crashed = (error: unknown) => {
    if (!(error instanceof Error) || error.message !== CRASH) throw error;
  };
  try {
    const step = snapshotEvery > 0 ? Math.min(detectEvery, snapshotEvery) : detectEvery;
    for (let t = opts.from.getTime() + step; t <= opts.until.getTime(); t += step) {
      const now = new Date(t);
      if (snapshotEvery > 0 && live.length > 0 && t % snapshotEvery === 0) {
        const sessions: Record<string, unknown> = {};
        for (const s of opts.sessions) {
          if (s.start.getTime() > t || (s.end !== null && s.end.getTime() <= t)) continue;
          const id = `live-${s.session_id}`;
          sessions[id] = { fields: { id, creation_time: s.start.toISOString(), token_hmac: s.token_hmac } };
        }
        const found = evaluateLiveRules(
          { sessions } as unknown as ActiveObservations,
          now,
          live,
          opts.overrides,
        );
        await recordIncidents(
          { ledger, logger: silentLogger, deliver: deliver(now) },
          found,
          (id) => opts.rules.find((r) => r.id === id),
          now,
        ).catch(crashed);
      }
      if (t % detectEvery !== (opts.detectAtMs ?? 0) % detectEvery) continue;
      await engine.run(
        `CREATE OR REPLACE TABLE ${HISTORY_TABLE} AS SELECT * FROM replay_rows WHERE archived_at <= CAST('${now.toISOString()}' AS TIMESTAMPTZ)`,
      );
      evaluations++;
      await evaluateRules(
        { engine, ledger, clock: new ManualClock(now), logger: silentLogger, deliver: deliver(now) },
        { rules: opts.rules, overrides: opts.overrides },
      ).catch(crashed);
    }
  } finally {
    engine.close();
    await rm(folder, { recursive: true, force: true });
  }
  return { deliveries, evaluations };
}
