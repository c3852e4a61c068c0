import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { TRINO_CHECK } from '../../lib/analytics/detect/runRuleTests.ts';
import { EXIT_FINDINGS } from '../../lib/cli/exitCodes.ts';
import { cliIn, freshDir, REPO_ROOT, spawnIn } from './cliKit.ts';

const rules = await loadRules();
const CACHE = join(REPO_ROOT, 'node_modules', '.cache', 'tunnel-archiver');
const line = (status: 'ok  ' | 'FAIL', rule: string, test: string) =>
  new RegExp(`^${status} ${rule}: ${test.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm');

let cwd: string;
/** A second checkout (bin, lib, detections, package.json; node_modules linked) with one rule broken. */
let checkout: string;

beforeAll(async () => {
  cwd = await freshDir('detect-test');
  checkout = await mkdtemp(join(tmpdir(), 'ta-detect-test-root-'));
  for (const d of ['bin', 'lib', 'detections', 'package.json'])
    await cp(join(REPO_ROOT, d), join(checkout, d), { recursive: true });
  await symlink(join(REPO_ROOT, 'node_modules'), join(checkout, 'node_modules'));
  // A DuckDB cast: DuckDB runs it, Athena (Trino) refuses it.
  const sql = join(checkout, 'detections', 'udp_tunnel.sql');
  const text = await readFile(sql, 'utf8');
  await writeFile(sql, text.replace('start_time AS first_seen', 'start_time::timestamp AS first_seen'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
  await rm(checkout, { recursive: true, force: true });
  // The second checkout's CLI bundle (bin/importTs.js names it after the checkout root and the entry).
  const name = createHash('sha256')
    .update(`${checkout}\0${relative(checkout, join(checkout, 'lib', 'cli', 'main.ts'))}`)
    .digest('hex')
    .slice(0, 16);
  for (const f of await readdir(CACHE).catch(() => [] as string[]))
    if (f === `${name}.json` || f.startsWith(`${name}-`))
      await rm(join(CACHE, f), { recursive: true, force: true });
});

describe('tunnel-archiver detect --test', () => {
  it('reports, per rule, that its SQL as Athena receives it parses as Trino SQL, under plain Node', async () => {
    const r = await cliIn(cwd, ['detect', '--test']);
    expect(r.code, r.stderr).toBe(0);
    for (const rule of rules) expect(r.stdout).toMatch(line('ok  ', rule.id, TRINO_CHECK));
    expect(r.stdout).toMatch(/ 0 failed$/m);
  });

  it('fails a rule whose SQL Athena would refuse, naming where, though DuckDB runs it', async () => {
    const r = await spawnIn(cwd, [
      process.execPath,
      join(checkout, 'bin', 'tunnel-archiver.js'),
      'detect',
      '--test',
      '--rule',
      'udp_tunnel',
    ]);
    expect(r.code, r.stderr).toBe(EXIT_FINDINGS);
    expect(r.stdout).toMatch(line('FAIL', 'udp_tunnel', `${TRINO_CHECK} (the rule: `));
    expect(r.stdout).toMatch(/\(the rule: \d+:\d+ '?:/);
    for (const test of rules.find((x) => x.id === 'udp_tunnel')?.tests ?? [])
      expect(r.stdout).toMatch(line('ok  ', 'udp_tunnel', test.name));
    expect(r.stdout).toMatch(/ 1 failed$/m);
  });
});
