import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { duckdbRuleEngine } from '../lib/analytics/detect/duckdbRuleEngine.ts';
import {
  type DeliveryStatus,
  dueRules,
  evaluateRules,
  recordIncidents,
} from '../lib/analytics/detect/evaluateRules.ts';
import type { Finding } from '../lib/analytics/detect/finding.ts';
import { type FindingLedger, memoryFindingLedger } from '../lib/analytics/detect/findingLedger.ts';
import { liveIncidentsToRecord } from '../lib/analytics/detect/liveIncidentsToRecord.ts';
import { evaluateLiveRules } from '../lib/analytics/detect/liveRules.ts';
import type { DetectionRule } from '../lib/analytics/detect/ruleSchema.ts';
import type { DetectionSettings } from '../lib/analytics/detect/ruleSettings.ts';
import { NO_LIVE_SESSIONS_SQL } from '../lib/analytics/detect/runRuleTests.ts';
import { ACTIVE_TABLE, HISTORY_TABLE } from '../lib/analytics/query/activeViews.ts';
import type { ActiveRow } from '../lib/archive/active/activeRow.ts';
import { ACTIVE_COLUMNS } from '../lib/archive/active/activeSchema.ts';
import type { ActiveState } from '../lib/archive/active/activeState.ts';
import { snapshotActive } from '../lib/archive/active/snapshotActive.ts';
import { HISTORY_COLUMNS } from '../lib/archive/parquet/historySchema.ts';
import type { ActiveSession } from '../lib/archive/records/schemas.ts';
import { tokenHmac } from '../lib/archive/records/tokenHmac.ts';
import type { LiveStore } from '../lib/archive/state/statePorts.ts';
import { ManualClock } from '../lib/foundation/clock/clock.ts';
import { type Day, toDay } from '../lib/foundation/clock/day.ts';
import { ArchiverError } from '../lib/foundation/errors/archiverError.ts';
import { silentLogger } from '../lib/foundation/log/logger.ts';

/** One tunnel of the replayed traffic: `end` null while it is open (to the end of the replay). */
export interface ReplaySession {
  session_id: string;
  /** The tunnel's token as the API shows it; history and `active/` hold its digest ({@link replayTokenHmac}). */
  token: string;
  client_address: string;
  start: Date;
  end: Date | null;
  mode_udp?: string;
  domains?: string[];
  /** Revisions the archive writes after the closed one (a late correction of the same session). */
  revisions?: number;
}

export interface Delivery {
  at: Date;
  finding: Finding;
  status: DeliveryStatus;
  /** Which function delivered it: `detect` on its schedule, or the snapshot function's live rules. */
  by: 'detect' | 'snapshot';
  /** The message as delivered (`new` ones: what SNS would carry), when `message` was given. */
  bytes?: number;
}

/** The schedules of the deployed functions (the stack's EventBridge rates), in milliseconds. */
export interface DeployedSchedule {
  /** The detect function's rate: each tick runs the rules whose own schedule is due (`dueRules`). */
  detectMs: number;
  /** The snapshot function's rate (0: no snapshots, no live rules). */
  snapshotMs: number;
  /** How long the snapshot function holds rows before it commits them to `active/` (0: every snapshot). */
  snapshotCommitMs: number;
  /** The archiver's rate: a history row is visible from the first archive run after it exists. */
  archiveMs: number;
}

export interface ReplayOptions {
  sessions: readonly ReplaySession[];
  from: Date;
  until: Date;
  rules: readonly DetectionRule[];
  overrides: DetectionSettings;
  schedule: DeployedSchedule;
  /** Where in the detect period its evaluations fall (default 0: on the period's boundaries, UTC). */
  detectAtMs?: number;
  /** Lets a delivery fail (a crash between write and publish): true = throw before publishing. */
  failDelivery?: (finding: Finding, attempt: number) => boolean;
  /** Lets a findings write fail (a crash between claim and write): true = throw before writing. */
  failWrite?: (findings: readonly Finding[], attempt: number) => boolean;
  /** The size of what would be sent for a delivery (e.g. the SNS message), awaited before the delivery is recorded. */
  message?: (finding: Finding, rule: DetectionRule) => number | Promise<number>;
  ledger?: FindingLedger;
}

const CRASH = 'stopped between claim and publish';
const DUCK_TYPE: Record<string, string> = {
  string: 'VARCHAR',
  timestamp: 'TIMESTAMPTZ',
  int: 'INTEGER',
  bigint: 'BIGINT',
  'array<string>': 'VARCHAR[]',
};
/** The token key of the replayed archive: history and the snapshot path digest tokens with it. */
const REPLAY_TOKEN_KEY = new Uint8Array(32).fill(7);

/** The public port of every replayed tunnel on the active list. */
const REPLAY_PORT = 443;

/** A token's digest as the replayed archive holds it (`token_hmac` in history and `active/`). */
export const replayTokenHmac = (token: string): string => tokenHmac(REPLAY_TOKEN_KEY, token);

type Row = Record<string, string | number | string[] | null>;

/** The first tick of a schedule with period `every` at or after `t`. */
const tickAtOrAfter = (t: number, every: number) => Math.ceil(t / every) * every;

/**
 * History as the archiver writes it on its schedule: a session still open at an archive run as an open
 * revision (no end), then, at the first run after it ended, a closed revision with a new record id,
 * then its `revisions` later corrections, one per run; each row visible from its `archived_at`.
 */
export function historyRows(sessions: readonly ReplaySession[], archiveMs: number): Row[] {
  const rows: Row[] = [];
  for (const s of sessions) {
    const base: Row = {
      session_id: s.session_id,
      user_email: 'team@example.com',
      client_ip: `[${s.client_address}]:40000`,
      dt: s.start.toISOString().slice(0, 10),
      token_hmac: replayTokenHmac(s.token),
      client_address: s.client_address,
      start_time: s.start.toISOString(),
      mode_udp: s.mode_udp ?? '',
      mode: s.mode_udp ? 'tcp' : 'http',
      domains: s.domains ?? [],
    };
    const firstRun = tickAtOrAfter(s.start.getTime() + 1, archiveMs);
    const closedRun = s.end === null ? Number.POSITIVE_INFINITY : tickAtOrAfter(s.end.getTime(), archiveMs);
    if (firstRun < closedRun)
      rows.push({
        ...base,
        record_id: `${s.session_id}-r1`,
        end_time: null,
        archived_at: new Date(firstRun).toISOString(),
      });
    if (s.end === null) continue;
    for (let r = 0; r <= (s.revisions ?? 0); r++)
      rows.push({
        ...base,
        record_id: `${s.session_id}-r${r + 2}`,
        end_time: s.end.toISOString(),
        archived_at: new Date(closedRun + r * archiveMs).toISOString(),
      });
  }
  return rows;
}

/**
 * The active list the API would answer at `t`: every replayed session open then, in the documented shape
 * (`token` null, the token in `virtualToken` as `<token>-<port>`).
 */
function activeList(sessions: readonly ReplaySession[], t: number): ActiveSession[] {
  const open = sessions.filter((s) => s.start.getTime() <= t && (s.end === null || s.end.getTime() > t));
  return open.map((s) => ({
    id: `live-${s.session_id}`,
    userId: 1,
    tokenId: 1,
    token: null,
    tokenName: null,
    virtualToken: `${s.token}-${REPLAY_PORT}`,
    virtualTokenName: null,
    subdomain: s.domains?.[0] ?? `${s.session_id}.a.pinggy.link`,
    customdomain: s.domains?.[1] ?? null,
    mode: s.mode_udp ? 'tcp' : 'http',
    modeUdp: s.mode_udp ?? '',
    port: REPLAY_PORT,
    creationTimestamp: s.start.toISOString(),
    lastUpdateTimestamp: s.start.toISOString(),
  }));
}

/** The snapshot function's state item, in memory (one writer at a time, as the stack's concurrency of 1). */
function memoryLiveStore(): LiveStore {
  let held: ActiveState | undefined;
  return {
    async getActiveState() {
      return held;
    },
    async putActiveState(state) {
      if ((held?.version ?? 0) !== state.version)
        throw new ArchiverError('CONFLICT', 'the active state changed meanwhile', { retryable: true });
      held = { ...state, version: state.version + 1 };
      return held;
    },
  };
}

const columnsOf = (cols: readonly { name: string; athenaType: string }[]) =>
  [...cols, { name: 'dt', athenaType: 'string' }]
    .map((c) => `${c.name}: '${DUCK_TYPE[c.athenaType] ?? 'VARCHAR'}'`)
    .join(', ');

/**
 * Replays traffic as deployed: the archiver, `detect` and the snapshot function each on its own
 * schedule (the stack's). Each detect tick runs the rules due then over the history archived so far and
 * the rows the snapshot function committed to `active/`; each snapshot lists the sessions open then,
 * runs the snapshot path (diff, rows held and committed to `active/`) and the live rules on its
 * observations; one ledger for both. Returns every delivery.
 */
export async function replaySchedule(
  opts: ReplayOptions,
): Promise<{ deliveries: Delivery[]; written: Finding[]; evaluations: number; snapshots: number }> {
  const { detectMs, snapshotMs, snapshotCommitMs, archiveMs } = opts.schedule;
  const folder = await mkdtemp(join(tmpdir(), 'ta-replay-'));
  const historyFile = join(folder, 'history.ndjson');
  const activeFile = join(folder, 'active.ndjson');
  await writeFile(
    historyFile,
    historyRows(opts.sessions, archiveMs)
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  await writeFile(activeFile, '');
  // NDJSON read by DuckDB with the Glue tables' types (a VALUES list of thousands of rows is slow to plan).
  const engine = await duckdbRuleEngine([
    NO_LIVE_SESSIONS_SQL,
    `CREATE TABLE replay_rows AS SELECT * FROM read_json('${historyFile}', format = 'newline_delimited', columns = {${columnsOf(HISTORY_COLUMNS)}})`,
  ]);
  const ledger = opts.ledger ?? memoryFindingLedger('replay');
  const deliveries: Delivery[] = [];
  const attempts = new Map<string, number>();
  // `findings/` as detect and the snapshot function write it: one row per (finding_id, revision), a row written twice kept once.
  const written = new Map<string, Finding>();
  let writes = 0;
  const commitFindings = async (findings: readonly Finding[]) => {
    if (opts.failWrite?.(findings, ++writes)) throw new Error(CRASH);
    for (const f of findings) written.set(`${f.finding_id}#${f.revision}`, f);
  };
  let evaluations = 0;
  let snapshots = 0;
  const deliver =
    (at: Date, by: Delivery['by']) =>
    async (finding: Finding, rule: DetectionRule, status: DeliveryStatus) => {
      const n = (attempts.get(finding.finding_id) ?? 0) + 1;
      attempts.set(finding.finding_id, n);
      if (opts.failDelivery?.(finding, n)) throw new Error(CRASH);
      const bytes = opts.message ? await opts.message(finding, rule) : undefined;
      deliveries.push({ at, finding, status, by, ...(bytes === undefined ? {} : { bytes }) });
    };
  const live = opts.rules.filter((r) => r.live);
  const ruleOf = (id: string) => opts.rules.find((r) => r.id === id);
  // A crash between claim and publish stops that evaluation; anything else fails the replay.
  const crashed = (error: unknown) => {
    if (!(error instanceof Error) || error.message !== CRASH) throw error;
  };
  const liveStore = memoryLiveStore();
  let activeRows = 0;
  let activeLoaded = 0;
  const commitRows = async (_dt: Day, rows: readonly ActiveRow[]) => {
    await appendFile(
      activeFile,
      rows.map((r) => `${JSON.stringify({ ...r, dt: toDay(r.observed_at) })}\n`).join(''),
    );
    activeRows += rows.length;
  };
  try {
    const step = snapshotMs > 0 ? Math.min(detectMs, snapshotMs) : detectMs;
    const phase = (opts.detectAtMs ?? 0) % detectMs;
    for (let t = opts.from.getTime() + step; t <= opts.until.getTime(); t += step) {
      const now = new Date(t);
      if (snapshotMs > 0 && t % snapshotMs === 0) {
        snapshots++;
        await snapshotActive(
          {
            api: { listActive: async () => [] },
            listed: Promise.resolve({ sessions: activeList(opts.sessions, t), at: now }),
            state: liveStore,
            commitRows,
            clock: new ManualClock(now),
            logger: silentLogger,
            tokenKey: REPLAY_TOKEN_KEY,
            afterSnapshot: async (observations, observedAt) => {
              const found = await liveIncidentsToRecord(
                ledger,
                evaluateLiveRules(observations, observedAt, live, opts.overrides),
                ruleOf,
              );
              // As the snapshot function: each new or updated finding written to findings/, then delivered.
              await recordIncidents(
                { ledger, logger: silentLogger, commitFindings, deliver: deliver(observedAt, 'snapshot') },
                found,
                ruleOf,
                observedAt,
              ).catch(crashed);
            },
          },
          { tokenPolicy: 'hash', windowDays: 60, scheduleMs: snapshotMs, commitEveryMs: snapshotCommitMs },
        );
      }
      if (t % detectMs !== phase) continue;
      const due = dueRules(opts.rules, now, detectMs);
      if (due.length > 0) {
        await engine.run(
          `CREATE OR REPLACE TABLE ${HISTORY_TABLE} AS SELECT * FROM replay_rows WHERE archived_at <= CAST('${now.toISOString()}' AS TIMESTAMPTZ)`,
        );
        if (activeRows > activeLoaded) {
          await engine.run(
            `CREATE OR REPLACE TABLE ${ACTIVE_TABLE} AS SELECT * FROM read_json('${activeFile}', format = 'newline_delimited', columns = {${columnsOf(ACTIVE_COLUMNS)}})`,
          );
          activeLoaded = activeRows;
        }
        evaluations++;
      }
      // As the detect handler: the due rules (none: only what the outbox holds is finished).
      await evaluateRules(
        {
          engine,
          ledger,
          clock: new ManualClock(now),
          logger: silentLogger,
          commitFindings,
          deliver: deliver(now, 'detect'),
        },
        { rules: due, overrides: opts.overrides },
      ).catch(crashed);
    }
  } finally {
    engine.close();
    await rm(folder, { recursive: true, force: true });
  }
  return { deliveries, written: [...written.values()], evaluations, snapshots };
}
