import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleQueries } from '../../infra/constructs/historyCatalog.ts';
import { TABLES } from '../../lib/archive/config/tableNames.ts';
import { BIN, cliIn, emptyFolders, freshDir, type Ran, REPO_ROOT, spawnIn } from '../cli/cliKit.ts';

const NOW = '2026-10-01T06:00:00.000Z';
let root: string;
/** A folder whose name needs percent-encoding in a file:// URL. */
let dir: string;
let start: Ran;

beforeAll(async () => {
  root = await freshDir('start');
  dir = path.join(root, 'my dir');
  start = await cliIn(root, ['start', '--now', NOW, '--dest', `file://./my%20dir`]);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('npm start, then the printed query', () => {
  it('archives the emulator with a human summary and no JSON beside it', () => {
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toMatch(/^run \w+ finished in/m);
    expect(start.stdout).toMatch(/^ {2}records: +\d+ new, \d+ seen$/m);
    expect(start.stdout).not.toMatch(/^\{/m);
    expect(start.stderr).not.toContain('run finished');
    const notice = start.stderr.split('\n').find((l) => l.includes('embedded emulator'));
    expect(JSON.parse(notice ?? '')).toMatchObject({
      level: 'info',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/),
    });
  });

  it('never prints the AWS SDK Node-version warning', () => {
    expect(start.stderr).not.toMatch(/NodeVersionSupportWarning|AWS SDK for JavaScript/);
  });

  it('decodes file://./my%20dir once: data and state both in "my dir"', () => {
    expect(existsSync(path.join(dir, 'history'))).toBe(true);
    expect(existsSync(path.join(dir, '.state'))).toBe(true);
    expect(existsSync(path.join(root, 'my%20dir'))).toBe(false);
  });

  it('leaves no empty folders behind (no _staging/<run>/dt=…)', async () => {
    expect(await emptyFolders(dir)).toEqual([]);
    expect(existsSync(path.join(dir, '_staging'))).toBe(false);
  });

  it('ends with a query command that works exactly as printed', async () => {
    const line = start.stdout
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('npx tunnel-archiver query'));
    expect(line).toBeDefined();
    expect(start.stdout).not.toContain('duckdb -c');
    const r = await spawnIn(REPO_ROOT, ['sh', '-c', line as string]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^dt +mode +sessions$/);
    expect(lines.at(-1)).toBe('(10 rows)');
    expect(lines[2]).toMatch(/^2026-\d\d-\d\d +\w+ +\d+$/);
  });

  it('ends with the report command and where it writes; run as printed, it writes the page there', async () => {
    const lines = start.stdout.split('\n').map((l) => l.trim());
    const command = lines.find((l) => l.startsWith('npx tunnel-archiver report'));
    expect(command).toBeDefined();
    const where = lines.find((l) => l.startsWith('writes '))?.slice('writes '.length);
    expect(where).toBe(path.join(dir, 'report.html'));
    expect(existsSync(where as string)).toBe(false);
    const r = await spawnIn(root, [
      'sh',
      '-c',
      (command as string).replace(/^npx tunnel-archiver/, `node ${BIN}`),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(where);
    expect(existsSync(where as string)).toBe(true);
  });

  it('query prints CSV and JSON from the same views', async () => {
    const dest = ['--dest', `file://./my%20dir`];
    const sql = 'SELECT count(*) AS n, count(DISTINCT dt) AS days FROM tunnel_sessions';
    const csv = await cliIn(root, ['query', '--csv', sql, ...dest]);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, row] = csv.stdout.split('\r\n');
    expect(header).toBe('n,days');
    const json = await cliIn(root, ['query', sql, '--json', ...dest]);
    const [obj] = JSON.parse(json.stdout) as { n: unknown; days: unknown }[];
    expect(`${obj?.n},${obj?.days}`).toBe(row);
    expect(Number(obj?.days)).toBeGreaterThan(50);
  });

  it('query also runs Athena SQL as written: the tunnel_archive schema, the active table and both views', async () => {
    const dest = ['--dest', `file://./my%20dir`];
    const sql = `SELECT
      (SELECT count(*) FROM tunnel_archive.tunnel_sessions) AS history,
      (SELECT count(*) FROM tunnel_archive.tunnel_active_sessions) AS active,
      (SELECT count(*) FROM tunnel_archive.tunnel_sessions_named WHERE active_id IS NOT NULL) AS named,
      (SELECT count(*) FROM tunnel_sessions_lost) AS lost`;
    const r = await cliIn(root, ['query', sql, '--json', ...dest]);
    expect(r.code, r.stderr).toBe(0);
    const [row] = JSON.parse(r.stdout) as Record<string, string | number>[];
    expect(Number(row?.history)).toBeGreaterThan(1000);
    expect(Number(row?.active)).toBeGreaterThan(0); // every run snapshots the active list
    expect(Number(row?.named)).toBeGreaterThanOrEqual(0);
    expect(Number(row?.lost)).toBe(0);
  });

  it('query names a bad SQL statement with its own code and exit 8, not as a configuration error', async () => {
    const r = await cliIn(root, ['query', 'SELECT nope FROM tunnel_sessions', '--dest', 'file://./my%20dir']);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^error \[QUERY_FAILED\]: the SQL failed: .*nope/);
    const table = await cliIn(root, ['query', 'SELECT * FROM no_such_table', '--dest', 'file://./my%20dir']);
    expect(table.code).toBe(8);
    expect(table.stderr).toMatch(/^error \[QUERY_FAILED\]: .*no_such_table/);
  });

  it('ends quietly when its output is closed early: `status | head -1` and a reader that never reads', async () => {
    const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;
    const dest = "--dest 'file://./my%20dir'";
    const commands = [
      `status --now ${NOW} ${dest}`,
      `verify ${dest}`,
      `status --json --now ${NOW} ${dest}`,
      `query ${dest} "SELECT * FROM tunnel_sessions"`,
      '--help',
    ];
    for (const command of commands) {
      for (const reader of ['head -1', 'true']) {
        // bash: PIPESTATUS[0] is the CLI's own exit code; its stderr goes to the file checked below.
        const line = `${cli} ${command} 2>cli-stderr.txt | ${reader} >/dev/null; echo "exit=\${PIPESTATUS[0]}"; cat cli-stderr.txt`;
        const r = await spawnIn(root, ['bash', '-c', line]);
        expect(r.stdout, `${command} | ${reader}`).toMatch(/^exit=0$/m);
        expect(r.stdout, `${command} | ${reader}`).not.toMatch(/EPIPE|Error:|\n\s+at /);
      }
    }
  });

  it('status reads the same archive, and --quiet runs print no progress', async () => {
    const status = await cliIn(root, ['status', '--now', NOW, '--dest', 'file://./my%20dir']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^2026-10-01 +0 /m);
    // Live sessions: how many were open at the last snapshot, and each one history will never show.
    expect(status.stdout).toMatch(/^live sessions: [1-9]\d* open at the last snapshot/m);
    expect(status.stdout).toMatch(
      /^ {2}LONG \S+ open since .* days\): its active\/ rows are its only record$/m,
    );
    const quiet = await cliIn(root, ['start', '--now', NOW, '--dest', 'file://./my%20dir', '--quiet']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toMatch(/records: +0 new/);
  });
});

describe('the stack’s saved Athena queries, run locally', () => {
  const portable = exampleQueries(TABLES.history.name).filter((q) => !q.query.includes('to_utf8'));

  it.each(portable.map((q) => [q.name, q.query] as const))(
    '%s runs unchanged through query',
    async (_name, sql) => {
      const r = await cliIn(root, ['query', sql, '--dest', 'file://./my%20dir']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/\(\d+ rows?\)\n$/);
    },
  );
});
