import { Agent, request } from 'undici';
import { EMULATOR_PAID_KEY } from '../devkit/startEmulator.ts';
import type { Day } from '../lib/foundation/clock/day.ts';
import { mapLimit } from '../lib/foundation/concurrency/mapLimit.ts';

export interface BoundResult {
  pages: number;
  records: number;
  seconds: number;
  /** CPU seconds of the bound's process (boundChild only). */
  cpuSeconds?: number;
}

/**
 * The keep-alive pool the bench's clients fetch over: `connections` sockets, each closed after 4 s idle,
 * below Node's 5 s server keep-alive, so a pooled socket is never reused just as the server closes it.
 */
export function benchDispatcher(connections: number): Agent {
  return new Agent({ connections, keepAliveTimeout: 4_000 });
}

/**
 * The fetch-and-parse bound: every page of every day fetched once and `JSON.parse`d, nothing else. Days
 * run one after another and the pages of a day `concurrency` at a time after its first page (which gives
 * `totalPages`), as the archiver does, over one keep-alive pool.
 */
export async function fetchBound(
  baseUrl: string,
  days: readonly Day[],
  opts: { pageSize: number; concurrency: number; onPage?: (path: string, body: string) => void },
): Promise<BoundResult> {
  const dispatcher = benchDispatcher(opts.concurrency);
  let pages = 0;
  let records = 0;
  const get = async (url: string): Promise<{ statusCode: number; text: string }> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await request(url, {
          dispatcher,
          headers: { authorization: `Bearer ${EMULATOR_PAID_KEY}` },
        });
        return { statusCode: res.statusCode, text: await res.body.text() };
      } catch (error) {
        // A reset socket is retried, as the archiver's client does; anything else is a bench failure.
        if (attempt >= 3 || (error as { code?: string }).code !== 'ECONNRESET') throw error;
      }
    }
  };
  const fetchPage = async (day: Day, page: number): Promise<{ totalPages: number }> => {
    const path = `/backend/api/v1/session/history/${day}/${day}?page=${page}&size=${opts.pageSize}`;
    const url = `${baseUrl}${path}`;
    const res = await get(url);
    opts.onPage?.(path, res.text);
    const body = JSON.parse(res.text) as { content?: unknown[]; totalPages?: number };
    if (res.statusCode !== 200) throw new Error(`bound fetch ${url}: HTTP ${res.statusCode}`);
    pages++;
    records += body.content?.length ?? 0;
    return { totalPages: body.totalPages ?? 0 };
  };
  const t0 = performance.now();
  try {
    for (const day of days) {
      const { totalPages } = await fetchPage(day, 0);
      const rest = Array.from({ length: Math.max(0, totalPages - 1) }, (_, i) => i + 1);
      await mapLimit(rest, opts.concurrency, (page) => fetchPage(day, page));
    }
    return { pages, records, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await dispatcher.close();
  }
}
