import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ARCHIVE_DATABASE,
  athenaLikeDuckdb,
  LOST_SESSIONS_VIEW,
  localViewSetup,
  NAMED_SESSIONS_VIEW,
  sqlString,
} from '../analytics/index.ts';
import { loadConfig, TABLES } from '../archive/index.ts';
import { ArchiverError, parseDestUrl, terminalJson, terminalText } from '../foundation/index.ts';
import type { CliIo } from './cliIo.ts';
import type { CliFlags } from './parseCliFlags.ts';

/** The example query `npm start` prints; it runs unchanged in Athena (there, prefix `tunnel_archive.`). */
export const EXAMPLE_QUERY = `SELECT dt, mode, count(*) AS sessions FROM ${TABLES.history.name} GROUP BY dt, mode ORDER BY dt DESC, sessions DESC LIMIT 10`;

const shellQuote = (s: string): string => (/^[\w./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** A shell command line that runs `sql` on the archive at `dest` (omitted: the default destination). */
export function queryCommandLine(dest?: string, sql: string = EXAMPLE_QUERY): string {
  const where = dest === undefined ? '' : ` --dest ${shellQuote(localDestUrl(dest))}`;
  return `npx tunnel-archiver query "${sql}"${where}`;
}

function localDestUrl(dest: string): string {
  const parsed = parseDestUrl(dest);
  return parsed.kind === 'file' ? pathToFileURL(parsed.dir).href : dest;
}

/** Views named like the Athena tables over every dataset the archive folder holds. */
export function viewStatements(dir: string): string[] {
  const out: string[] = [];
  for (const table of Object.values(TABLES)) {
    const folder = path.join(dir, table.prefix);
    if (!existsSync(folder)) continue;
    const glob = path.join(folder, 'dt=*', '*.parquet');
    out.push(
      `CREATE VIEW ${table.name} AS SELECT * FROM read_parquet(${sqlString(glob)}, hive_partitioning = true, hive_types = {'dt': VARCHAR}, union_by_name = true)`,
    );
  }
  return out;
}

type Cell = string | number | boolean | null | Cell[] | { [k: string]: Cell };

function text(v: Cell): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function csvField(v: Cell): string {
  const s = text(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A plain text table: header, rule, rows (cells cut at 60 characters), and the row count. */
export function formatTable(columns: string[], rows: Cell[][]): string {
  const cut = (s: string) => (s.length > 60 ? `${s.slice(0, 59)}…` : s);
  const cells = rows.map((r) => r.map((v) => cut(v === null ? 'NULL' : text(v))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((s, i) => s.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return `${[line(columns), rule, ...cells.map(line)].join('\n')}\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
}

/**
 * `tunnel-archiver query "<SQL>"`: DuckDB over the local archive, with views named like the Athena
 * tables (`tunnel_sessions`, and `tunnel_active_sessions` once `active/` exists). Read-only: an
 * in-memory database over the Parquet files; it creates nothing. DuckDB is loaded only here.
 */
export async function queryCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const sql = flags.positionals.join(' ').trim();
  if (sql === '' || flags.positionals.length === 0)
    throw new ArchiverError('CONFIG_INVALID', `query needs one SQL statement, e.g. ${queryCommandLine()}`);
  if (flags.values.csv && flags.values.json)
    throw new ArchiverError('CONFIG_INVALID', '--csv and --json exclude each other: pick one');
  const config = loadConfig({ flags: { dest: flags.values.dest }, env: io.env, readsOnly: true });
  const dest = parseDestUrl(config.dest);
  if (dest.kind !== 'file')
    throw new ArchiverError(
      'CONFIG_INVALID',
      `query reads a local archive; ${config.dest} is on S3: query it with Athena (database tunnel_archive)`,
    );
  const views = viewStatements(dest.dir);
  if (views.length === 0)
    throw new ArchiverError(
      'CONFIG_INVALID',
      `no archive at ${dest.dir} (no ${TABLES.history.prefix} folder): run \`npm start\` or \`tunnel-archiver run\` first, or pass --dest`,
    );
  const duckdb = await athenaLikeDuckdb();
  const { connection } = duckdb;
  try {
    // The Athena catalog too: schema tunnel_archive with both tables and the naming and loss views (the
    // very SQL the stack deploys), so Athena queries run unchanged, with or without the schema prefix.
    const catalog = await localViewSetup(dest.dir);
    const aliases = [NAMED_SESSIONS_VIEW, LOST_SESSIONS_VIEW].map(
      (v) => `CREATE VIEW ${v} AS SELECT * FROM ${ARCHIVE_DATABASE}.${v}`,
    );
    for (const v of [...views, ...catalog, ...aliases]) await connection.run(v);
    let reader: Awaited<ReturnType<typeof connection.runAndReadAll>>;
    try {
      reader = await connection.runAndReadAll(sql);
    } catch (cause) {
      throw new ArchiverError('QUERY_FAILED', `the SQL failed: ${(cause as Error).message}`, { cause });
    }
    const columns = reader.columnNames();
    const rows = reader.getRowsJson() as Cell[][];
    if (flags.values.json) {
      const objects = rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? null])));
      io.stdout.write(`${terminalJson(objects)}\n`);
    } else if (flags.values.csv) {
      io.stdout.write(
        `${[columns.map(csvField), ...rows.map((r) => r.map(csvField))].map((r) => r.join(',')).join('\r\n')}\r\n`,
      );
    } else {
      io.stdout.write(terminalText(formatTable(columns, rows), { keepNewlines: true }));
    }
    return 0;
  } finally {
    duckdb.close();
  }
}
