import { mkdirSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../devkit/headlessChromium.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../../devkit/startEmulator.ts';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { buildStores } from '../../lib/cli/buildRuntime.ts';
import { main } from '../../lib/cli/main.ts';
import { addDays } from '../../lib/foundation/clock/day.ts';
import { offsetClock } from '../../lib/foundation/clock/offsetClock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { buildReportModel } from '../../lib/integrity/report/buildReportModel.ts';
import type { ArchiveStatus } from '../../lib/integrity/status/archiveStatus.ts';
import type { VerifyResult } from '../../lib/integrity/verify/verifyTypes.ts';
import { captureIo, freshDir, REPO_ROOT } from '../cli/cliKit.ts';
import { plantFindings } from './plantFindings.ts';

const NOW = '2026-10-01T06:00:00.000Z';
let dir: string;
let browser: Browser;
let status: ArchiveStatus;
let verify: VerifyResult;
let html: string;
let gapDay: string;
let failedDay: string;

/** Runs the CLI in this process (no bundle, no child): an expected exit code (0 unless said), stdout returned. */
async function cli(args: string[], env: Record<string, string> = {}, expected = 0): Promise<string> {
  const { io, out, err } = captureIo(env);
  const code = await main([...args, '--now', NOW, '--dest', dir], io);
  if (code !== expected) throw new Error(`${args[0]} exited ${code}: ${err()}`);
  return out();
}

beforeAll(async () => {
  dir = await freshDir('report');
  const emulator = await startEmulator({
    seed: 1,
    clock: offsetClock(new Date(NOW)),
    dataset: { scale: 0.2 },
  });
  try {
    await cli(['run', '--quiet'], { TUNNEL_API_KEY: EMULATOR_PAID_KEY, TUNNEL_API_BASE_URL: emulator.url });
  } finally {
    await emulator.close();
  }
  // Planted in the state: a gap before the window, and a day of the window whose walk failed.
  const stores = await buildStores(loadConfig({ flags: { dest: dir }, env: {} }), silentLogger);
  try {
    const window = (await stores.state.listDays()).map((d) => d.day).sort();
    gapDay = addDays(window[0] as string, -1);
    failedDay = window[20] as string;
    await stores.state.putDay({
      day: gapDay,
      scannedAges: [],
      sealed: false,
      gap: true,
      gapReason: 'planted',
      version: 0,
    });
    const failed = await stores.state.getDay(failedDay);
    await stores.state.putDay({
      ...(failed ?? { day: failedDay, scannedAges: [], sealed: false, version: 0 }),
      failure: {
        code: 'UPSTREAM_UNAVAILABLE',
        message: 'planted',
        attempts: 2,
        firstFailedAt: NOW,
        lastFailedAt: NOW,
      },
    });
  } finally {
    await stores.close();
  }
  await plantFindings(dir);
  status = JSON.parse(await cli(['status', '--json'])) as ArchiveStatus;
  // The planted findings file went around the committer: no digest lists it, and verify says so (exit 5);
  // the page must show that failure as verify reports it.
  verify = JSON.parse(await cli(['verify', '--json'], {}, 5)) as VerifyResult;
  expect(JSON.stringify(verify.failures)).toContain('findings/dt=2026-09-30/planted.parquet');
  await cli(['report', '--verify']);
  html = await readFile(path.join(dir, 'report.html'), 'utf8');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the report in headless Chromium', () => {
  it('loads with no console error and no request beyond its own file, and shows each day and figure as status --json and verify --json', async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(path.join(dir, 'report.html')).href;
    await page.goto(url);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);

    const cells = await page.$$eval('.grid .cell', (els) =>
      els.map((e) => ({ day: e.getAttribute('data-day'), status: e.getAttribute('data-status') })),
    );
    const byDay = new Map(cells.map((c) => [c.day, c.status]));
    expect(byDay.size).toBe(cells.length); // one cell per day
    // Every window day status --json lists, in the colour its row says.
    for (const row of status.days) {
      const expected = status.failed.some((f) => f.day === row.day)
        ? ['failed']
        : status.gaps.includes(row.day)
          ? ['gap']
          : row.sealed
            ? ['sealed']
            : row.shortfall > 0
              ? ['pending']
              : ['window', 'pending'];
      expect(expected, row.day).toContain(byDay.get(row.day));
    }
    expect(byDay.get(gapDay)).toBe('gap');
    expect(byDay.get(failedDay)).toBe('failed');
    expect(status.failed.map((f) => f.day)).toEqual([failedDay]);
    expect(status.gaps).toEqual([gapDay]);
    // The window's days and the planted gap before it; and every partition of history/ among them.
    expect(cells.length).toBe(status.days.length + 1);
    const partitions = (await readdir(path.join(dir, 'history'))).map((p) => p.replace('dt=', ''));
    expect(partitions.length).toBeGreaterThan(30);
    for (const dt of partitions) expect(byDay.has(dt), dt).toBe(true);

    const figures = Object.fromEntries(
      await page.$$eval('[data-figure]', (els) =>
        els.map((e) => [e.getAttribute('data-figure'), e.textContent]),
      ),
    );
    expect(figures).toMatchObject({
      'status.gaps': String(status.gaps.length),
      'status.failed': String(status.failed.length),
      'status.live.open': String(status.live.open),
      'status.live.longSessions': String(status.live.longSessions.length),
      'status.meta.lastRunAt': status.meta?.lastRunAt,
      'status.meta.lastSuccessAt': status.meta?.lastSuccessAt,
      'verify.records': String(verify.records),
      'verify.files': String(verify.files),
      'verify.rows': String(verify.rows),
      'verify.digests': String(verify.digests),
      'verify.failures': String(verify.failures.length),
      'verify.pending': String(verify.pending),
      'verify.lostSessions': String(verify.lostSessions),
      'verify.lastDigestAt': verify.lastDigestAt,
      'verify.head.seq': String(verify.head?.seq),
      'verify.head.sha256': verify.head?.sha256,
      'findings.total': '3',
    });
    // Each finding's rule is named as detect names it (the findings dataset's `rule_id`).
    const tables = await page.locator('table').allInnerTexts();
    expect(tables).toEqual(
      expect.arrayContaining([expect.stringMatching(/new_client_network\s+medium\s+2/)]),
    );
    expect(tables).toEqual(expect.arrayContaining([expect.stringMatching(/off_hours\s+low\s+1/)]));

    // A cell shows its day on hover, and on keyboard focus.
    const failedCell = page.locator(`.grid .cell[data-day="${failedDay}"]`);
    await failedCell.hover();
    await expect(failedCell.locator('.tip').isVisible()).resolves.toBe(true);
    expect(await failedCell.locator('.tip').textContent()).toContain('failed (UPSTREAM_UNAVAILABLE)');
    await page.mouse.move(0, 0);
    const gapCell = page.locator(`.grid .cell[data-day="${gapDay}"]`);
    await gapCell.focus();
    await expect(gapCell.locator('.tip').isVisible()).resolves.toBe(true);
    expect(await gapCell.locator('.tip').textContent()).toContain('gap (planted)');

    await page.mouse.move(0, 0);
    await page.locator(':focus').blur();
    const shot = process.env.REPORT_SCREENSHOT ?? path.join(dir, 'report.png');
    mkdirSync(path.dirname(path.resolve(REPO_ROOT, shot)), { recursive: true });
    await page.screenshot({ path: path.resolve(REPO_ROOT, shot), fullPage: true });
    await page.close();
  });

  it('without the state, finds the same tunnels open longer than history can show, from active/', async () => {
    const model = await buildReportModel({
      objects: createFileObjectStore(dir),
      clock: offsetClock(new Date(NOW)),
      windowDays: 60,
    });
    expect(status.live.longSessions.length).toBeGreaterThan(0);
    expect(model.activity.longSessions.map((l) => l.id)).toEqual(status.live.longSessions.map((l) => l.id));
  });

  it('is self-contained: no script, no external URL in any src or href', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
  });
});
