import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { archiveKeys, HISTORY_COLUMNS } from '../../archive/index.ts';
import { ArchiverError, type Day } from '../../foundation/index.ts';
import { sqlString } from '../query/sqlString.ts';
import { athenaLikeDuckdb } from '../sql/athenaLikeDuckdb.ts';
import { duckdbSpelling, duckdbType } from '../sql/duckdbSpelling.ts';
import type { OcsfRule } from './detectionFindingMapping.ts';
import { findingsOcsfSql } from './findingsOcsfSql.ts';
import type { OcsfProfile } from './ocsfProfile.ts';
import { sessionsOcsfSql } from './sessionsOcsfSql.ts';

export const OCSF_CLASSES = ['sessions', 'findings'] as const;
export type OcsfClass = (typeof OCSF_CLASSES)[number];

/** The columns of `findings/` the mapping reads, for an archive that has none yet (an empty table). */
export const FINDING_INPUT = {
  finding_id: 'VARCHAR',
  rule_id: 'VARCHAR',
  title: 'VARCHAR',
  severity: 'VARCHAR',
  source: 'VARCHAR',
  entity: 'VARCHAR',
  token_hmac: 'VARCHAR',
  client_network: 'VARCHAR',
  session_id: 'VARCHAR',
  first_seen: 'TIMESTAMPTZ',
  last_seen: 'TIMESTAMPTZ',
  hits: 'INTEGER',
  record_ids: 'VARCHAR[]',
  detected_at: 'TIMESTAMPTZ',
  revision: 'INTEGER',
} as const;

/** Which events: those whose `time` (or `metadata.logged_time`) is in `[fromMs, toMs)`. */
export interface OcsfWindow {
  fromMs: number;
  toMs: number;
}

/** The archive's partitions a mapping reads: `dt` from `fromDay` (optional) to `untilDay`. */
export interface OcsfDays {
  fromDay?: Day;
  untilDay: Day;
}

export interface OcsfArchive {
  /** The events of a class in the window, sorted by time then uid, each as OCSF JSON text (nulls in). */
  events(
    cls: OcsfClass,
    profile: OcsfProfile,
    rules: readonly OcsfRule[],
    window: OcsfWindow,
  ): Promise<string[]>;
  /** Writes the same events to a Parquet file (ZSTD), sorted by time. Returns the event count. */
  writeParquet(
    cls: OcsfClass,
    profile: OcsfProfile,
    rules: readonly OcsfRule[],
    window: OcsfWindow,
    path: string,
  ): Promise<number>;
  /** The UTC days (YYYY-MM-DD) the events of a class in the window fall on, in order. */
  eventDays(
    cls: OcsfClass,
    profile: OcsfProfile,
    rules: readonly OcsfRule[],
    window: OcsfWindow,
  ): Promise<Day[]>;
  /**
   * Maps the class once for a window, so `events` and `writeParquet` inside it read the mapped rows
   * (a run that writes many hours maps them once).
   */
  prepare(
    cls: OcsfClass,
    profile: OcsfProfile,
    rules: readonly OcsfRule[],
    window: OcsfWindow,
  ): Promise<void>;
  close(): void;
}

function hasParquet(dir: string): boolean {
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((p) => {
    const sub = join(dir, p);
    return p.startsWith('dt=') && existsSync(sub) && readdirSync(sub).some((f) => f.endsWith('.parquet'));
  });
}

export interface OcsfArchiveOptions {
  /**
   * An archive folder holding an earlier part of `dir`'s files: the events then leave out every event
   * whose `metadata.uid` the mapping of `before` already produces (what those files added, and only that).
   */
  before?: string;
}

/**
 * The archive folder `dir` in DuckDB (in memory, the Athena shims loaded), its `history/` and
 * `findings/` partitions limited to `days`, ready to run the OCSF mapping. Reads only.
 */
export async function openOcsfArchive(
  dir: string,
  days: OcsfDays,
  options: OcsfArchiveOptions = {},
): Promise<OcsfArchive> {
  const duckdb = await athenaLikeDuckdb();
  const { connection } = duckdb;
  const dtFilter = `dt <= ${sqlString(days.untilDay)}${days.fromDay ? ` AND dt >= ${sqlString(days.fromDay)}` : ''}`;
  const table = (name: string, prefix: string, empty: string, root = dir) => {
    const folder = join(root, prefix);
    return hasParquet(folder)
      ? `CREATE VIEW ${name} AS SELECT * FROM read_parquet(${sqlString(`${folder}/dt=*/*.parquet`)}, hive_partitioning = true, hive_types = {'dt': VARCHAR}, union_by_name = true) WHERE ${dtFilter}`
      : `CREATE TABLE ${name} AS SELECT ${empty} WHERE false`;
  };
  const emptyHistory = HISTORY_COLUMNS.map((c) => `NULL::${duckdbType(c.athenaType)} AS ${c.name}`).join(
    ', ',
  );
  const emptyFindings = Object.entries(FINDING_INPUT)
    .map(([n, t]) => `NULL::${t} AS ${n}`)
    .join(', ');
  for (const s of [
    table('ocsf_history', archiveKeys.historyPrefix, emptyHistory),
    table('ocsf_findings', archiveKeys.findingsPrefix, emptyFindings),
    ...(options.before === undefined
      ? []
      : [
          table('ocsf_history_before', archiveKeys.historyPrefix, emptyHistory, options.before),
          table('ocsf_findings_before', archiveKeys.findingsPrefix, emptyFindings, options.before),
        ]),
  ])
    await connection.run(s);

  const mappingOver = (cls: OcsfClass, profile: OcsfProfile, rules: readonly OcsfRule[], suffix: string) =>
    duckdbSpelling(
      cls === 'sessions'
        ? sessionsOcsfSql(`ocsf_history${suffix}`, profile)
        : findingsOcsfSql(
            { findings: `ocsf_findings${suffix}`, history: `ocsf_history${suffix}` },
            profile,
            rules,
          ),
    );
  const mappingOf = (cls: OcsfClass, profile: OcsfProfile, rules: readonly OcsfRule[]) =>
    options.before === undefined
      ? mappingOver(cls, profile, rules, '')
      : `SELECT n.* FROM (${mappingOver(cls, profile, rules, '')}) n
WHERE NOT EXISTS (SELECT 1 FROM (${mappingOver(cls, profile, rules, '_before')}) b WHERE b.metadata.uid = n.metadata.uid)`;
  const prepared = new Map<string, { table: string; window: OcsfWindow }>();
  const select = (cls: OcsfClass, profile: OcsfProfile, rules: readonly OcsfRule[], w: OcsfWindow) => {
    const ready = prepared.get(`${cls}|${profile.version}`);
    const from =
      ready !== undefined && ready.window.fromMs <= w.fromMs && w.toMs <= ready.window.toMs
        ? ready.table
        : `(${mappingOf(cls, profile, rules)})`;
    return `SELECT * FROM ${from} o
WHERE o."time" >= ${Math.trunc(w.fromMs)} AND o."time" < ${Math.trunc(w.toMs)}
ORDER BY o."time", o.metadata.uid`;
  };
  const failed = (cause: unknown) =>
    new ArchiverError('QUERY_FAILED', `the OCSF mapping failed in DuckDB: ${(cause as Error).message}`, {
      cause,
    });
  return {
    async events(cls, profile, rules, w) {
      try {
        const reader = await connection.runAndReadAll(
          `SELECT CAST(to_json(e) AS VARCHAR) AS event FROM (${select(cls, profile, rules, w)}) e`,
        );
        return reader.getRowObjectsJson().map((r) => String(r.event));
      } catch (cause) {
        throw failed(cause);
      }
    },
    async writeParquet(cls, profile, rules, w, path) {
      try {
        const reader = await connection.runAndReadAll(
          `COPY (${select(cls, profile, rules, w)}) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd)`,
        );
        return Number(reader.getRowsJson()[0]?.[0] ?? 0);
      } catch (cause) {
        throw failed(cause);
      }
    },
    async eventDays(cls, profile, rules, w) {
      try {
        const reader = await connection.runAndReadAll(
          `SELECT DISTINCT CAST(CAST(epoch_ms(e."time") AS DATE) AS VARCHAR) AS day FROM (${select(cls, profile, rules, w)}) e ORDER BY day`,
        );
        return reader.getRowObjectsJson().map((r) => String(r.day) as Day);
      } catch (cause) {
        throw failed(cause);
      }
    },
    async prepare(cls, profile, rules, w) {
      const table = `ocsf_mapped_${cls}_${profile.version.replaceAll('.', '_')}`;
      try {
        await connection.run(`CREATE OR REPLACE TEMP TABLE ${table} AS ${select(cls, profile, rules, w)}`);
      } catch (cause) {
        throw failed(cause);
      }
      prepared.set(`${cls}|${profile.version}`, { table, window: w });
    },
    close: duckdb.close,
  };
}
