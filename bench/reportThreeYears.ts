import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MemoryObjectStore } from '../devkit/fakes/memoryObjectStore.ts';
import { launchChromium } from '../devkit/headlessChromium.ts';
import { digestKeys } from '../lib/archive/digest/digestKeys.ts';
import type { DayState } from '../lib/archive/state/dayState.ts';
import { systemClock } from '../lib/foundation/clock/clock.ts';
import { addDays, type Day, dayRange } from '../lib/foundation/clock/day.ts';
import { buildReportModel } from '../lib/integrity/report/buildReportModel.ts';
import { renderReport } from '../lib/integrity/report/renderReport.ts';
import type { ReportBenchResult } from './reportTargets.ts';

export { REPORT_TARGETS } from './reportTargets.ts';

const TODAY = '2026-10-01';
const NOW = new Date(`${TODAY}T06:00:00.000Z`);
const MODES = ['http', 'tcp', 'tls', 'tlstcp'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * A synthetic 3-year archive as the report reads it: one digest per day (two files, five scans), a state
 * with every day (sealed, a few gaps and failures, the window still open), and activity series: sessions
 * per day and mode, and a live count every 5 minutes for 3 years (downsampled by the renderer).
 */
async function syntheticInputs() {
  const days = dayRange(addDays(TODAY, -(3 * 365)), TODAY);
  const objects = new MemoryObjectStore();
  const states: DayState[] = [];
  for (const [i, day] of days.entries()) {
    const scans = [0, 1, 3, 58, 59].map((age) => ({
      day,
      scannedAt: `${addDays(day, age)}T06:00:00.000Z`,
      complete: true,
    }));
    const files = [0, 1].map((n) => ({
      key: `history/dt=${day}/20261001T060000Z-run${i}-${n}.parquet`,
      sha256: 'a'.repeat(64),
      bytes: 120_000,
      rows: 1000 + n,
      dataset: 'history' as const,
      dt: day,
      min: `${day}T00:00:00.000Z`,
      max: `${day}T23:59:59.000Z`,
    }));
    const digest = {
      format: 1,
      seq: i + 1,
      runId: `run${i}`,
      createdAt: `${day}T06:00:00.000Z`,
      keyId: 'k',
      algorithm: 'ed25519',
      previous: null,
      scans,
      files,
      signature: 'x',
    };
    await objects.put(digestKeys.digest(i + 1), JSON.stringify(digest));
    const inWindow = i >= days.length - 60;
    const failed = i % 97 === 0;
    states.push({
      day,
      scannedAges: [0, 1, 3, 58, 59],
      sealed: !inWindow && i % 53 !== 0,
      ...(i % 53 === 0 && !inWindow ? { gap: true, gapReason: 'left the window unsealed' } : {}),
      ...(failed
        ? {
            failure: {
              code: 'UPSTREAM_UNAVAILABLE' as const,
              message: 'synthetic',
              attempts: 3,
              firstFailedAt: NOW.toISOString(),
              lastFailedAt: NOW.toISOString(),
            },
          }
        : {}),
      distinctSeen: 2001,
      totalElements: 2001,
      shortfall: 0,
      version: 1,
    });
  }
  return { days, objects, states };
}

/** The page's first contentful paint, in ms since navigation started (waits for it if not there yet). */
const FIRST_PAINT = `new Promise((resolve) => {
  const found = () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
  if (found() !== undefined) return resolve(found());
  new PerformanceObserver(() => resolve(found() ?? -1)).observe({ type: 'paint', buffered: true });
})`;

/** Builds and renders the 3-year report `runs` times, and times its first paint in headless Chromium. */
export async function reportThreeYears(runs = 3): Promise<ReportBenchResult> {
  const { days, objects, states } = await syntheticInputs();
  const byMode = days.flatMap((day, i) =>
    MODES.map((mode, m) => ({ day, mode, sessions: 50 + ((i * 7 + m * 13) % 90) })),
  );
  const live = Array.from({ length: 3 * 365 * 288 }, (_, k) => ({
    at: new Date(NOW.getTime() - (3 * 365 * 288 - k) * 300_000).toISOString(),
    open: 40 + ((k * 31) % 60),
  }));
  const render = async () => {
    const t0 = performance.now();
    const model = await buildReportModel({
      objects,
      clock: { ...systemClock, now: () => NOW },
      windowDays: 60,
      state: {
        days: states,
        meta: {
          firstRunAt: '2023-10-01T06:00:00.000Z',
          firstWindowStart: days[0] as Day,
          lastRunAt: NOW.toISOString(),
          version: 1,
        },
        active: undefined,
      },
    });
    model.activity = { ...model.activity, byMode, live };
    const html = renderReport(model);
    return { html, ms: performance.now() - t0 };
  };
  const renders = [];
  for (let i = 0; i < runs; i++) renders.push(await render());
  const html = renders[0]?.html ?? '';
  const file = path.join(tmpdir(), `ta-report-bench-${process.pid}.html`);
  await writeFile(file, html);
  const browser = await launchChromium();
  const paints: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      // Evaluated in the page (a string: the page's types are the browser's, not Node's).
      const fcp = (await page.evaluate(FIRST_PAINT)) as number;
      paints.push(Math.round(fcp));
      await page.close();
    }
  } finally {
    await browser.close();
    if (!process.env.REPORT_BENCH_KEEP) await rm(file, { force: true });
  }
  return {
    days: days.length,
    bytes: Buffer.byteLength(html),
    renderMs: Math.round(median(renders.map((r) => r.ms))),
    firstPaintMs: median(paints),
    samplesMs: paints,
  };
}
