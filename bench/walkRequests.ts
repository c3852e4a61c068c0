import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startEmulator } from '../devkit/startEmulator.ts';
import { HISTORY_PATH } from '../lib/archive/upstream/createTunnelApiClient.ts';
import { addDays, type Day, dayRange, toDay } from '../lib/foundation/clock/day.ts';
import { measuredLocalRun } from './measuredLocalRun.ts';
import { scaledDataset } from './scaledDataset.ts';

/** History requests of one run's day walks against the fewest that could list them. */
export interface WalkRequests {
  order: 'stable' | 'reshuffled';
  pageSize: number;
  days: number;
  records: number;
  /** Σ totalPages: one request per page of each day. */
  minimum: number;
  requests: number;
  /** The most requests one day took beyond its totalPages. */
  worstDayExcess: number;
  /** Passes over the days' pages (Σ, and the most of one day). */
  passes: number;
  maxPasses: number;
}

const PAGE_SIZE = 100;

/**
 * One archiving run of the 60-day window (default dataset ×3, page size 100) through a counting proxy:
 * each day's history requests (the preflight, `size=1`, aside) against `totalPages` of that day.
 */
export async function walkRequests(order: WalkRequests['order']): Promise<WalkRequests> {
  const emulator = await startEmulator({
    seed: 7,
    dataset: scaledDataset(3),
    maxPageSize: PAGE_SIZE,
    faults: { stableOrder: order === 'stable' },
  });
  const byDay = new Map<string, number>();
  const proxy = createServer((req, res) => {
    const path = req.url ?? '/';
    const m = new RegExp(`^${HISTORY_PATH}/([0-9-]{10})/[0-9-]{10}\\?page=\\d+&size=(\\d+)`).exec(path);
    if (m && Number(m[2]) !== 1) byDay.set(m[1] as string, (byDay.get(m[1] as string) ?? 0) + 1);
    request(`${emulator.url}${path}`, { headers: { authorization: req.headers.authorization ?? '' } })
      .then(async (up) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        const retryAfter = up.headers['retry-after'];
        if (typeof retryAfter === 'string') headers['retry-after'] = retryAfter;
        res.writeHead(up.statusCode, headers).end(await up.body.text());
      })
      .catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const { summary } = await measuredLocalRun(url, { ...process.env, PAGE_SIZE: String(PAGE_SIZE) });
    const today = toDay(new Date());
    const days: Day[] = dayRange(addDays(today, -59), today);
    let minimum = 0;
    let requests = 0;
    let worstDayExcess = 0;
    let records = 0;
    for (const day of days) {
      const rows = emulator.truth(day).length;
      const totalPages = Math.max(1, Math.ceil(rows / PAGE_SIZE));
      const made = byDay.get(day) ?? 0;
      records += rows;
      minimum += totalPages;
      requests += made;
      worstDayExcess = Math.max(worstDayExcess, made - totalPages);
    }
    return {
      order,
      pageSize: PAGE_SIZE,
      days: days.length,
      records,
      minimum,
      requests,
      worstDayExcess,
      passes: summary.days.reduce((n, d) => n + d.passes, 0),
      maxPasses: Math.max(0, ...summary.days.map((d) => d.passes)),
    };
  } finally {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await emulator.close();
  }
}
