import { appendFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { PLANTED_EMAIL, PLANTS } from '../../lib/archive/emulator/plantedSessions.ts';
import { DETECT_HINT } from '../../lib/cli/startCommand.ts';
import { addDays } from '../../lib/foundation/clock/day.ts';
import { cliIn, freshDir, type Ran } from '../cli/cliKit.ts';

const NOW = '2026-10-01T06:00:00.000Z';
const SETTINGS = (dir: string) => path.join(dir, 'detections.yml');
const LATER = '2026-10-01T06:10:00.000Z';
let root: string;
let start: Ran;
let detect: Ran;
let findings: { rule_id: string; record_ids: string[]; new: boolean; last_seen: string }[];
let planted: Set<string>;
/** The planted records of each rule's own plant (a plant's port is 20000 plus its index in PLANTS). */
let plantedFor: Map<string, Set<string>>;

beforeAll(async () => {
  root = await freshDir('detect');
  // The last 12 days are enough for the baselines and keep the run short.
  const days = Array.from({ length: 12 }, (_, i) => addDays('2026-09-30', -i)).join(',');
  start = await cliIn(root, ['start', '--now', NOW, '--quiet', '--days', days]);
  // A baseline the 12 days hold: with the default 30 days the baseline rules are still warming up.
  await writeFile(SETTINGS(root), 'settings:\n  baseline_days: 10\n');
  detect = await cliIn(root, ['detect', '--now', LATER, '--json', '--settings', SETTINGS(root)]);
  findings = JSON.parse(detect.stdout || '[]');
  const q = await cliIn(root, [
    'query',
    '--json',
    `SELECT record_id, port FROM tunnel_sessions WHERE user_email = '${PLANTED_EMAIL}'`,
  ]);
  const rows = JSON.parse(q.stdout) as { record_id: string; port: number }[];
  planted = new Set(rows.map((r) => r.record_id));
  plantedFor = new Map();
  for (const r of rows) {
    const rule = PLANTS[Number(r.port) - 20_000]?.rule ?? 'unknown';
    plantedFor.set(rule, (plantedFor.get(rule) ?? new Set()).add(r.record_id));
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('npm start, then tunnel-archiver detect', () => {
  it('finds every planted pattern, each by the rule it was planted for', async () => {
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toContain(DETECT_HINT);
    expect(detect.code, detect.stderr).toBe(0);
    expect(planted.size).toBe(PLANTS.length);
    const rules = (await loadRules()).map((r) => r.id);
    expect(plantedFor.has('unknown')).toBe(false);
    for (const rule of new Set(PLANTS.map((p) => p.rule))) {
      expect(rules).toContain(rule);
      // The rule fired on its own plant's records, and on nothing else.
      const own = plantedFor.get(rule) ?? new Set<string>();
      const onOwn = findings.filter(
        (f) => f.rule_id === rule && f.record_ids.length > 0 && f.record_ids.every((id) => own.has(id)),
      );
      expect(onOwn.length, `${rule} fired on its own plant's records`).toBeGreaterThan(0);
    }
  });

  it('finds nothing in the normal traffic of the same run', () => {
    const normal = findings.filter((f) => f.record_ids.some((id) => !planted.has(id)));
    expect(normal).toEqual([]);
    expect(findings.every((f) => f.new)).toBe(true);
  });

  it('evaluates at --now exactly: a tunnel still open has lasted until then', () => {
    const open = findings.filter((f) => f.rule_id === 'long_tunnel' && f.last_seen === LATER);
    expect(open.length).toBeGreaterThan(0);
    expect(findings.filter((f) => f.last_seen > LATER)).toEqual([]);
  });

  it('prints a table by default, the same findings again as seen; --fail-on high exits 9', async () => {
    const again = await cliIn(root, [
      'detect',
      '--now',
      LATER,
      '--fail-on',
      'high',
      '--settings',
      SETTINGS(root),
    ]);
    expect(again.code, again.stderr).toBe(9);
    expect(again.stdout).toMatch(new RegExp(`^${findings.length} findings \\(`, 'm'));
    expect(again.stdout).toMatch(/^HIGH +token_many_networks/m);
    expect(again.stdout).not.toMatch(/ new$/m);
  });

  it('refuses a folder without an archive, and creates nothing there', async () => {
    const empty = await freshDir('detect-empty');
    const r = await cliIn(empty, ['detect']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no archive at .*run `npm start`/);
    expect(await readdir(empty)).toEqual([]);
    await rm(empty, { recursive: true, force: true });
  });

  it('stores findings under findings/dt=…/, lists them in the digest chain, and verify checks them', async () => {
    const archive = path.join(root, 'archive');
    // A later run digests what it noted since: the findings files, digested by detect, are not listed again.
    const later = await cliIn(root, [
      'start',
      '--now',
      '2026-10-01T07:00:00.000Z',
      '--quiet',
      '--days',
      '2026-09-30',
    ]);
    expect(later.code, later.stderr).toBe(0);
    const digests = (await readdir(path.join(archive, 'digests'))).filter((n) => /^\d+\.json$/.test(n));
    const listed = await Promise.all(
      digests.map(
        async (n) =>
          JSON.parse(await readFile(path.join(archive, 'digests', n), 'utf8')) as {
            files: { key: string; rows: number }[];
          },
      ),
    );
    const files = listed.flatMap((d) => d.files).filter((f) => f.key.startsWith('findings/dt='));
    expect(files.length).toBeGreaterThan(0);
    expect(new Set(files.map((f) => f.key)).size, 'each findings file in one digest only').toBe(files.length);
    // Every finding of the first evaluation is stored, once: the evaluation at the same instant (the test
    // above) saw the same incidents, the open long tunnels included, and stored no revision.
    expect(files.reduce((a, f) => a + f.rows, 0)).toBe(findings.length);
    const ok = await cliIn(root, ['verify']);
    expect(ok.code, ok.stdout).toBe(0);
    await appendFile(path.join(archive, files[0]?.key ?? ''), 'x');
    const tampered = await cliIn(root, ['verify']);
    expect(tampered.code).toBe(5);
    expect(tampered.stdout).toContain(files[0]?.key);
  });
});
