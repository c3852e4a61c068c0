import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../lib/cli/commands.ts';
import { cliIn, freshDir, tree } from './cliKit.ts';

const NOW = '2026-10-01T06:00:00.000Z';
const KEY = { TUNNEL_API_KEY: 'emulator-paid-key' };
/** What the client's error says once it has retried (a host it cannot reach is never retried). */
const RETRIED = /after ([2-9]|\d{2,}) attempt/;
const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const dirs: string[] = [];
let closedPortUrl: string;

async function emptyCwd(): Promise<string> {
  const d = await freshDir('cli');
  dirs.push(d);
  return d;
}

beforeAll(async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  closedPortUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('tunnel-archiver help and version', () => {
  const names = Object.keys(COMMANDS);

  it.concurrent.each(names.flatMap((n) => [[n, [n, '--help']] as const, [n, ['help', n]] as const]))(
    "%s: %j prints that command's help and touches nothing",
    async (name, args) => {
      const cwd = await emptyCwd();
      const r = await cliIn(cwd, [...args], { ...KEY, ARCHIVE_DEST: `file://${cwd}/archive` });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(name === 'emulator' ? 'emulator' : `Usage: tunnel-archiver ${name}`);
      expect(r.stderr).toBe('');
      expect(await tree(cwd)).toEqual([]);
    },
  );

  it('run --help is the run help, not the global one', async () => {
    const r = await cliIn(await emptyCwd(), ['run', '--help']);
    expect(r.stdout).toMatch(/^Usage: tunnel-archiver run/);
    expect(r.stdout).toContain('--page-size VALUE');
    expect(r.stdout).not.toContain('tunnel-archiver status [flags]');
  });

  it('--version prints the package version', async () => {
    const r = await cliIn(await emptyCwd(), ['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('tunnel-archiver bad invocations', () => {
  const cases: { args: string[]; env?: Record<string, string>; code: number; says: RegExp }[] = [
    {
      args: ['run', '--page-size', '-1'],
      env: KEY,
      code: 2,
      says: /--page-size must be at least 1, got '-1'/,
    },
    {
      args: ['run'],
      env: { ...KEY, PAGE_SIZE: '0' },
      code: 2,
      says: /PAGE_SIZE must be at least 1, got '0'/,
    },
    {
      args: ['run', '--page-size', 'lots'],
      env: KEY,
      code: 2,
      says: /--page-size must be an integer from 1 to 10000, got 'lots'/,
    },
    {
      args: ['run', '--bogus'],
      env: KEY,
      code: 2,
      says: /^error \[CONFIG_INVALID\]: unknown flag --bogus; see tunnel-archiver run --help$/m,
    },
    { args: ['run', '--json=yes'], env: KEY, code: 2, says: /--json takes no value, got 'yes'/ },
    { args: ['run', '--dest'], env: KEY, code: 2, says: /--dest needs a value/ },
    { args: ['run'], code: 2, says: /TUNNEL_API_KEY is not set/ },
    {
      args: ['run', '--dest', 's3://my-archive/p'],
      env: KEY,
      code: 2,
      says: /ARCHIVE_STATE \(dynamodb:\/\/TABLE\) is required when --dest is s3:\/\//,
    },
    {
      args: ['run', '--state', 'redis://x'],
      env: KEY,
      code: 2,
      says: /--state must be dynamodb:\/\/TABLE .*got 'redis:\/\/x'/,
    },
    {
      args: ['run', '--days', '2020-01-01', '--now', NOW],
      env: KEY,
      code: 2,
      says: /OUTSIDE_WINDOW.*--days 2020-01-01 is outside the 60-day window 2026-08-03\.\.2026-10-01/,
    },
    {
      args: ['run', '--days', '2026-9-1'],
      env: KEY,
      code: 2,
      says: /--days must be YYYY-MM-DD.*got '2026-9-1'/,
    },
    {
      args: ['run', '--now', '2026-02-30T00:00:00Z'],
      env: KEY,
      code: 2,
      says: /--now must be an ISO 8601 instant .*got '2026-02-30T00:00:00Z'/,
    },
    { args: ['run', '--now', '2026/11/20 10:00:00'], env: KEY, code: 2, says: /--now must be/ },
    { args: ['status'], code: 2, says: /no archive at .*archive: the folder does not exist/ },
    {
      args: ['status', '--dest', 'file://./typo'],
      code: 2,
      says: /no archive at .*typo.*nothing was created/,
    },
    {
      args: ['start', '--token-values', 'maybe'],
      code: 2,
      says: /--token-values must be keep, hash or drop, got 'maybe'/,
    },
    { args: ['query', 'SELECT 1'], code: 2, says: /no archive at .*archive/ },
    { args: ['query'], code: 2, says: /query needs one SQL statement/ },
    { args: ['frobnicate'], code: 2, says: /unknown command 'frobnicate'/ },
    { args: ['help', 'frobnicate'], code: 2, says: /no help for 'frobnicate'/ },
  ];

  it.concurrent.each(cases)('$args exits $code, says $says, and leaves the folder as it was', async (c) => {
    const cwd = await emptyCwd();
    const r = await cliIn(
      cwd,
      [...c.args, ...(c.args[0] === 'run' ? ['--base-url', closedPortUrl] : [])],
      c.env ?? {},
    );
    expect(r.code, r.stderr).toBe(c.code);
    expect(r.stderr).toMatch(c.says);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(await tree(cwd)).toEqual([]);
  });

  it('refuses an http:// base URL for a host that is not this machine, creating nothing', async () => {
    const cwd = await emptyCwd();
    const r = await cliIn(cwd, ['run', '--base-url', 'http://api.example.com'], KEY);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--base-url must be https:\/\/ for api\.example\.com/);
    expect(await tree(cwd)).toEqual([]);
  });

  it('fails on its first request, creating nothing, when the API host does not resolve', async () => {
    const cwd = await emptyCwd();
    const r = await cliIn(cwd, ['run', '--base-url', 'https://nonexistent.invalid'], KEY);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(RETRIED);
    expect(r.stderr).toMatch(
      /cannot reach the tunnel API at https:\/\/nonexistent\.invalid: .*\((ENOTFOUND|EAI_AGAIN)\)/,
    );
    expect(await tree(cwd)).toEqual([]);
  });

  it('fails on its first request when nothing listens at the base URL', async () => {
    const cwd = await emptyCwd();
    const r = await cliIn(cwd, ['run', '--base-url', closedPortUrl], KEY);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(RETRIED);
    expect(r.stderr).toMatch(/connection was refused .*ECONNREFUSED/);
    expect(await tree(cwd)).toEqual([]);
  });
});
