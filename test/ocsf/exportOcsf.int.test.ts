import { existsSync } from 'node:fs';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../devkit/runCli.ts';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import { FINDINGS_TABLE } from '../../lib/analytics/detect/findingsDataset.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { dayWindow, exportOcsf } from '../../lib/analytics/ocsf/exportOcsf.ts';
import { openOcsfArchive } from '../../lib/analytics/ocsf/ocsfArchive.ts';
import { OCSF_1_1 } from '../../lib/analytics/ocsf/ocsfProfile.ts';
import { ocsfViews } from '../../lib/analytics/ocsf/ocsfViews.ts';
import { stripNulls } from '../../lib/analytics/ocsf/stripNulls.ts';
import { athenaLikeDuckdb } from '../../lib/analytics/sql/athenaLikeDuckdb.ts';
import { duckdbSpelling } from '../../lib/analytics/sql/duckdbSpelling.ts';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';
import { baseRecord, TEST_TOKEN_KEY } from '../records/historyRecords.ts';
import { tempDirPer } from '../support/tempDirPer.ts';
import { ARCHIVE_DAYS, emulatorArchive } from './emulatorArchive.ts';
import { ocsfErrors, type SchemaName } from './ocsfSchemas.ts';

/** Sessions the archiver saw twice (the first revision open or with an earlier end), and one still open. */
const REVISIONS: ArchiveRow[] = (() => {
  const keyed = (archivedAt: string) =>
    ({ tokenPolicy: 'hash', tokenKey: TEST_TOKEN_KEY, archivedAt: new Date(archivedAt) }) as const;
  const session = (user: string, start: string) => ({ user_email: user, start_time: start });
  const a = session('revised-open-then-closed@example.com', '2026-11-19T08:00:00.000Z');
  const b = session('revised-later-end@example.com', '2026-11-19T11:00:00.000Z');
  const c = session('still-open@example.com', '2026-11-19T15:00:00.000Z');
  return [
    // The latest revisions first, so the file's order does not pick them.
    toArchiveRow(baseRecord({ ...a, end_time: '2026-11-19T09:30:00.000Z' }), keyed('2026-11-19T10:00:00Z')),
    toArchiveRow(
      baseRecord({ ...b, end_time: '2026-11-19T11:45:00.000Z', domains: ['b.example.com'] }),
      keyed('2026-11-19T12:00:00Z'),
    ),
    toArchiveRow(baseRecord({ ...a, end_time: null }), keyed('2026-11-19T09:00:00Z')),
    toArchiveRow(baseRecord({ ...b, end_time: '2026-11-19T11:20:00.000Z' }), keyed('2026-11-19T11:30:00Z')),
    toArchiveRow(baseRecord({ ...c, end_time: null }), keyed('2026-11-19T16:00:00Z')),
  ];
})();

/** Each session's latest revision (largest archived_at, then record_id), read from history/ as it is. */
async function latestRevisions(
  dir: string,
): Promise<Map<string, { start: number; end: number | null; archived: number; record: string }>> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const rows = await c.runAndReadAll(
      `SELECT session_id, record_id, epoch_ms(start_time) AS s, epoch_ms(end_time) AS e, epoch_ms(archived_at) AS a FROM read_parquet('${dir}/history/dt=*/*.parquet')`,
    );
    const latest = new Map<string, { start: number; end: number | null; archived: number; record: string }>();
    for (const r of rows.getRowObjectsJson()) {
      const row = {
        start: Number(r.s),
        end: r.e === null ? null : Number(r.e),
        archived: Number(r.a),
        record: String(r.record_id),
      };
      const cur = latest.get(String(r.session_id));
      if (!cur || row.archived > cur.archived || (row.archived === cur.archived && row.record > cur.record))
        latest.set(String(r.session_id), row);
    }
    return latest;
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

type Event = Record<string, unknown> & { metadata: { uid: string }; time: number };

const tmp = tempDirPer('ta-ocsf-export-');
let archive: string;
beforeAll(async () => {
  archive = await emulatorArchive(tmp.dir);
});

const [since, until] = ARCHIVE_DAYS;
const exported = new Map<string, Event[]>();

/** Runs the real CLI's export and reads its file back (Parquet through DuckDB), nulls left out. */
async function cliExport(cls: 'sessions' | 'findings', format: 'jsonl' | 'parquet'): Promise<Event[]> {
  const key = `${cls}.${format}`;
  const known = exported.get(key);
  if (known) return known;
  const out = join(tmp.dir, `out-${key}`);
  const args = ['export', '--ocsf', '--class', cls, '--since', since, '--until', until, '--format', format];
  const r = await runCli([...args, '--out', out, '--dest', archive], { TMPDIR: tmp.dir });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const file = join(out, `ocsf-${cls}-${since}-${until}.${format}`);
  expect(r.stdout).toContain(file);
  let events: Event[];
  if (format === 'jsonl') {
    const text = await readFile(file, 'utf8');
    expect(text).not.toMatch(/null/);
    events = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Event);
  } else {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const rows = await c.runAndReadAll(
      `SELECT CAST(to_json(e) AS VARCHAR) AS j FROM read_parquet('${file}') e`,
    );
    events = rows.getRowObjectsJson().map((row) => stripNulls(JSON.parse(String(row.j))) as Event);
    c.closeSync();
    db.closeSync();
  }
  exported.set(key, events);
  return events;
}

const SCHEMA: Record<'sessions' | 'findings', SchemaName> = {
  sessions: '1.8.0-tunnel_activity',
  findings: '1.8.0-detection_finding',
};

describe('export --ocsf on the emulator archive', () => {
  it.each([
    ['sessions', 'jsonl'],
    ['sessions', 'parquet'],
    ['findings', 'jsonl'],
    ['findings', 'parquet'],
  ] as const)('every %s event (%s) validates against OCSF 1.8.0', async (cls, format) => {
    const events = await cliExport(cls, format);
    expect(events.length).toBeGreaterThan(cls === 'sessions' ? 100 : 5);
    const errors = events.map((e) => ocsfErrors(SCHEMA[cls], e)).filter((e) => e !== '');
    expect(errors.slice(0, 3)).toEqual([]);
    for (const e of events) {
      expect(e).not.toHaveProperty('dt');
      expect(Number.isSafeInteger(e.time)).toBe(true);
    }
    // Sorted by time; metadata.uid unique.
    expect(events.map((e) => e.time)).toEqual([...events.map((e) => e.time)].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.metadata.uid)).size).toBe(events.length);
  });

  it('gives each session one Open and, once ended, one Close, from its latest revision', async () => {
    // The emulator's archive, with sessions the archiver saw more than once (a revision: the same
    // session_id, a new record_id) in a file of their own, written by the archive's Parquet writer.
    const dir = join(tmp.dir, 'revised');
    await cp(archive, dir, { recursive: true });
    await writeHistoryParquet(REVISIONS, join(dir, 'history', 'dt=2026-11-19', 'revisions.parquet'));
    const out = join(tmp.dir, 'out-revised');
    const { file } = await exportOcsf(
      { dir },
      { cls: 'sessions', since, until, format: 'jsonl', outDir: out, rules: await loadRules() },
    );
    const events = (await readFile(file, 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Event);
    const latest = await latestRevisions(dir);
    // The planted sessions: two with two revisions each (the latest closed), one still open.
    for (const r of REVISIONS) expect(latest.has(r.session_id)).toBe(true);
    expect(new Set(REVISIONS.map((r) => r.session_id)).size).toBe(3);
    const { fromMs, toMs } = dayWindow(since, until);
    const inWindow = (ms: number | null): ms is number => ms !== null && ms >= fromMs && ms < toMs;
    const want: string[] = [];
    for (const [id, r] of latest) {
      const end = r.end === null ? '' : ` end=${r.end}`;
      if (inWindow(r.start)) want.push(`${id} Open time=${r.start}${end} logged=${r.archived}`);
      if (inWindow(r.end)) want.push(`${id} Close time=${r.end}${end} logged=${r.archived}`);
    }
    const got = events.map((e) => {
      const end = e.end_time === undefined ? '' : ` end=${e.end_time}`;
      const logged = (e.metadata as unknown as { logged_time: number }).logged_time;
      return `${(e.session as { uid: string }).uid} ${e.activity_name} time=${e.time}${end} logged=${logged}`;
    });
    expect(want.length).toBeGreaterThan(100);
    expect(got.sort()).toEqual(want.sort());
    const events18 = await cliExport('sessions', 'jsonl');
    const open = events18.find((e) => e.activity_id === 1) as Event;
    expect(open).toMatchObject({
      class_uid: 4014,
      type_uid: 401401,
      severity_id: 1,
      user: { uid: expect.any(String) },
      connection_info: { direction_id: 2, protocol_name: expect.stringMatching(/^(tcp|udp)$/) },
      metadata: {
        version: '1.8.0',
        product: { name: 'Pinggy' },
        loggers: [{ product: { name: 'tunnel-archiver' } }],
      },
    });
    expect(open.session).toHaveProperty('credential_uid');
  });

  it('keeps every domain of a session: the custom domain the allowlist rule flags is an observable', async () => {
    const sessions = await cliExport('sessions', 'jsonl');
    const findings = await cliExport('findings', 'jsonl');
    const flagged = findings.find((f) =>
      (f.finding_info as { types: string[] }).types.includes('domain_not_allowlisted'),
    ) as Event & { unmapped: { entity: string }; finding_info: { related_events: { uid: string }[] } };
    const open = sessions.find((e) => e.metadata.uid === flagged.finding_info.related_events[0]?.uid);
    expect(open?.observables).toContainEqual({
      name: 'domain',
      type_id: 1,
      type: 'Hostname',
      value: flagged.unmapped.entity,
    });
  });

  it('splits ATT&CK ids: T1583.001 is a sub-technique of T1583, under its tactic', async () => {
    const findings = await cliExport('findings', 'jsonl');
    const domain = findings.find((f) =>
      (f.finding_info as { types: string[] }).types.includes('domain_not_allowlisted'),
    );
    expect((domain?.finding_info as { attacks: unknown[] } | undefined)?.attacks).toContainEqual({
      tactic: { uid: 'TA0042', name: 'Resource Development' },
      technique: { uid: 'T1583', name: 'Acquire Infrastructure' },
      sub_technique: { uid: 'T1583.001', name: 'Domains' },
    });
  });

  it("resolves every finding's related_events to exported session events", async () => {
    const sessions = await cliExport('sessions', 'jsonl');
    const findings = await cliExport('findings', 'jsonl');
    const uids = new Set(sessions.map((e) => e.metadata.uid));
    const related = findings.flatMap(
      (f) => (f.finding_info as { related_events?: { uid: string }[] }).related_events ?? [],
    );
    expect(related.length).toBeGreaterThan(5);
    for (const r of related) expect(uids.has(r.uid), r.uid).toBe(true);
  });

  it.each([
    ['network_activity', 'sessions'],
    ['detection_finding', 'findings'],
  ] as const)('maps to OCSF 1.1.0 %s for the Security Lake (every event valid)', async (schema, cls) => {
    const db = await openOcsfArchive(archive, { untilDay: until });
    try {
      const events = await db.events(cls, OCSF_1_1, await loadRules(), { fromMs: 0, toMs: 2 ** 52 });
      expect(events.length).toBeGreaterThan(5);
      const errors = events
        .map((e) => ocsfErrors(`1.1.0-${schema}`, stripNulls(JSON.parse(e))))
        .filter((e) => e !== '');
      expect(errors.slice(0, 3)).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe('the Athena views run in DuckDB', () => {
  it.each(['sessions', 'findings'] as const)(
    'give the %s events the export wrote (one source)',
    async (cls) => {
      const view = ocsfViews(FINDINGS_TABLE, await loadRules())[cls];
      const duckdb = await athenaLikeDuckdb();
      const c = duckdb.connection;
      try {
        const read = (dir: string) =>
          `read_parquet('${archive}/${dir}/dt=*/*.parquet', hive_partitioning = true, hive_types = {'dt': VARCHAR})`;
        for (const s of [
          'CREATE SCHEMA tunnel_archive',
          `CREATE VIEW tunnel_archive.tunnel_sessions AS SELECT * FROM ${read('history')}`,
          `CREATE VIEW tunnel_archive.${FINDINGS_TABLE} AS SELECT * FROM ${read('findings')}`,
        ])
          await c.run(s);
        const rows = await c.runAndReadAll(
          `SELECT CAST(to_json(e) AS VARCHAR) AS j FROM (${duckdbSpelling(view.sql)}) e`,
        );
        const byUid = (a: Event, b: Event) => a.metadata.uid.localeCompare(b.metadata.uid);
        const fromView = rows.getRowObjectsJson().map((r) => stripNulls(JSON.parse(String(r.j))) as Event);
        expect(fromView.sort(byUid)).toEqual([...(await cliExport(cls, 'jsonl'))].sort(byUid));
      } finally {
        duckdb.close();
      }
    },
  );
});

describe('export --ocsf with bad input', () => {
  it.each([
    [['--class', 'sessions', '--since', '2026-11-19', '--until', '2026-11-20'], /--ocsf/],
    [
      ['--ocsf', '--class', 'tokens', '--since', '2026-11-19', '--until', '2026-11-20'],
      /--class must be one of/,
    ],
    [
      ['--ocsf', '--class', 'sessions', '--since', '19.11.2026', '--until', '2026-11-20'],
      /--since must be a day/,
    ],
    [['--ocsf', '--class', 'sessions', '--since', '2026-11-21', '--until', '2026-11-20'], /after --until/],
    [
      ['--ocsf', '--class', 'sessions', '--since', '2026-11-19', '--until', '2026-11-20', '--format', 'csv'],
      /--format/,
    ],
    [
      ['--ocsf', '--class', 'sessions', '--since', '2026-11-19', '--until', '2026-11-20', '--bogus'],
      /unknown flag/,
    ],
  ])('%j exits 2 with a clear message and creates nothing', async (args, message) => {
    const out = join(tmp.dir, 'never');
    const r = await runCli(['export', ...args, '--out', out, '--dest', archive], { TMPDIR: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });

  it('names a folder that holds no archive, and creates nothing', async () => {
    const out = join(tmp.dir, 'never');
    const args = ['export', '--ocsf', '--class', 'sessions', '--since', since, '--until', until];
    const r = await runCli([...args, '--out', out, '--dest', join(tmp.dir, 'nothing')], {
      TMPDIR: tmp.dir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no archive at/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(join(tmp.dir, 'nothing'))).toBe(false);
  });
});

describe('export --ocsf from an S3 archive', () => {
  let s3: S3rverHandle;
  beforeAll(async () => {
    s3 = await startS3rver('ocsf-archive');
  });
  afterAll(async () => {
    await s3?.close();
  });

  const listing = async () => {
    const r = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    return (r.Contents ?? []).map((o) => `${o.Key} ${o.ETag} ${o.LastModified?.toISOString()}`).sort();
  };

  it('reads the archive only (no write call, the bucket unchanged) and exports what the folder gives', async () => {
    const store = createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix: 'tunnels' });
    const files: string[] = [];
    const walk = async (d: string): Promise<void> => {
      for (const e of await readdir(d, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(join(d, e.name));
        else if (e.name.endsWith('.parquet')) files.push(relative(archive, join(d, e.name)));
      }
    };
    await walk(archive);
    for (const f of files) await store.putFile(f, join(archive, f));
    const before = await listing();
    const writes: string[] = [];
    const readOnly: ObjectStore = {
      ...store,
      put: async (k) => writes.push(k),
      putFile: async (k) => writes.push(k),
      putIfAbsent: async (k) => writes.push(k) > 0,
      publish: async (k) => {
        writes.push(k);
      },
      deleteStaging: async (k) => {
        writes.push(k);
      },
    };
    const rules = await loadRules();
    for (const cls of ['sessions', 'findings'] as const) {
      const out = join(tmp.dir, `s3-${cls}`);
      const r = await exportOcsf(
        { objects: readOnly },
        { cls, since, until, format: 'jsonl', outDir: out, rules },
      );
      const text = await readFile(r.file, 'utf8');
      const local = await cliExport(cls, 'jsonl');
      expect(
        text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ).toEqual(local);
    }
    expect(writes).toEqual([]);
    expect(await listing()).toEqual(before);
  });
});
