import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { EMULATOR_PAID_KEY } from '../devkit/startEmulator.ts';
import { ACTIVE_PATH, HISTORY_PATH } from '../lib/archive/upstream/createTunnelApiClient.ts';
import { type Day, toDay } from '../lib/foundation/clock/day.ts';
import { fetchBound } from './fetchBound.ts';
import { type AnsweredPage, walkRequestPaths } from './walkRequestPaths.ts';

export interface Arrival {
  at: number;
  path: string;
  cpuUs?: number;
}

export interface ReplayServer {
  url: string;
  /** Pages recorded (and served from memory). */
  pages: number;
  /**
   * What a day walk of every recorded day asks for (`walkRequestPaths`): each page, and the end proof
   * after a day whose last page is full; all of them served from memory.
   */
  walkPaths: readonly string[];
  /** Every record of every recorded page, in page order. */
  records(): unknown[];
  /** Requests answered since the server started listening: all of them, and those for a history page. */
  requests(): { all: number; historyPages: number };
  /**
   * When each history page request arrived (`performance.now()` of this process) and its path, in order, with
   * what `stamp` read then (a client's CPU µs so far), when it was given one.
   */
  arrivals(): readonly Arrival[];
  close(): Promise<void>;
}

/**
 * Throws unless every recorded page of a day answered the same `totalElements`: pages recorded across a
 * change of the day (an emulator on the wall clock, whose sessions end and arrive late as it moves) hold a
 * total that no page's rows reach, and a walk of them passes the day again up to its most passes (50 times
 * the pages, 5,218 requests for 563 in a 1M backfill) however fast the archiver is.
 */
export function assertOneSnapshot(pages: readonly AnsweredPage[]): void {
  const totals = new Map<string, Set<number>>();
  for (const { path, body } of pages) {
    const day = path.split('?', 1)[0] as string;
    const total = (JSON.parse(body) as { totalElements?: number }).totalElements;
    if (typeof total !== 'number') continue;
    const seen = totals.get(day) ?? new Set<number>();
    seen.add(total);
    totals.set(day, seen);
  }
  const moved = [...totals].filter(([, seen]) => seen.size > 1);
  if (moved.length > 0) {
    const [day, seen] = moved[0] as [string, Set<number>];
    throw new Error(
      `the recording is not one snapshot: ${moved.length} day(s) answered more than one total (${day}: ${[...seen].join(', ')}); start the emulator on a frozen clock (fixedClock)`,
    );
  }
}

/**
 * Records every history page of `days` from the emulator once, then serves those exact bodies from memory
 * on a port of its own, `delayMs` after each request. Both the bound and the archiver then read the same
 * bytes at no server cost: the emulator builds each page by filtering and sorting the whole day, which for
 * a 100k-record day costs more than fetching and parsing the page, and would otherwise be measured as
 * part of both. Anything else (other page sizes, other days) is passed through to the emulator, and a
 * 200 answer is kept and served from memory from then on. What every archiver run asks for besides the
 * recorded pages (the active list, the preflight: page 0, size 1, of today, the empty page that proves the
 * end of a day whose last page is full, and page 1 of a day of one page, asked beside its page 0) is fetched
 * once before any timing: building an answer costs the emulator 0.2-0.4 s on a scaled day, which is neither
 * fetching nor archiving.
 *
 * Why separate from the emulator: it adds no behaviour of its own (the bytes are the emulator's); it only
 * takes the emulator's CPU out of a timed measurement, which matters to the bench and to nothing else.
 */
export async function startReplayServer(
  emulatorUrl: string,
  days: readonly Day[],
  opts: {
    pageSize: number;
    concurrency: number;
    delayMs?: number;
    /**
     * The page size a walk asks for when the server caps it at `pageSize` (the shipped PAGE_SIZE): the first
     * pages a pass asks at that size (0 and 1) are fetched once before any timing, and served from memory.
     */
    askedSize?: number;
    /** Read as each history page request arrives, and kept with it (`Arrival.cpuUs`). */
    stamp?: () => number | undefined;
  },
): Promise<ReplayServer> {
  const recorded = new Map<string, string>();
  const answered: AnsweredPage[] = [];
  await fetchBound(emulatorUrl, days, {
    ...opts,
    onPage: (path, body) => {
      recorded.set(path, body);
      answered.push({ path, body });
    },
  });
  assertOneSnapshot(answered);
  const walkPaths = walkRequestPaths(answered, opts.pageSize);
  /** Answers passed through and kept: never part of `records()`. */
  const kept = new Map<string, string>();
  const passThrough = async (path: string, authorization: string): Promise<[number, string]> => {
    const upstream = await request(`${emulatorUrl}${path}`, { headers: { authorization } });
    const text = await upstream.body.text();
    if (upstream.statusCode === 200) kept.set(path, text);
    return [upstream.statusCode, text];
  };
  const today = toDay(new Date());
  const proofs = walkPaths.filter((path) => !recorded.has(path));
  const asked =
    opts.askedSize === undefined || opts.askedSize === opts.pageSize
      ? []
      : days.flatMap((day) =>
          [0, 1].map((page) => `${HISTORY_PATH}/${day}/${day}?page=${page}&size=${opts.askedSize}`),
        );
  // A first walk with room for two requests asks for page 1 beside page 0 before it knows the day's size:
  // past the end of a day of one page, which the recording does not hold.
  const secondPages = days
    .map((day) => `${HISTORY_PATH}/${day}/${day}?page=1&size=${opts.pageSize}`)
    .filter((path) => !recorded.has(path));
  const warm = [
    ACTIVE_PATH,
    `${HISTORY_PATH}/${today}/${today}?page=0&size=1`,
    ...proofs,
    ...secondPages,
    ...asked,
  ];
  for (const path of new Set(warm)) {
    await passThrough(path, `Bearer ${EMULATOR_PAID_KEY}`);
  }
  const served = { all: 0, historyPages: 0 };
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    served.all += 1;
    if (path.startsWith(HISTORY_PATH)) {
      served.historyPages += 1;
      const cpuUs = opts.stamp?.();
      arrivals.push({ at: performance.now(), path, ...(cpuUs === undefined ? {} : { cpuUs }) });
    }
    const answer = async (): Promise<void> => {
      const body = recorded.get(path) ?? kept.get(path);
      if (body !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        return;
      }
      const [status, text] = await passThrough(
        path,
        req.headers.authorization ?? `Bearer ${EMULATOR_PAID_KEY}`,
      );
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    };
    const go = (): void => {
      answer().catch((error: unknown) => {
        res.writeHead(502).end(String(error));
      });
    };
    if (opts.delayMs) setTimeout(go, opts.delayMs);
    else go();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pages: recorded.size,
    walkPaths,
    records: () =>
      [...recorded.values()].flatMap((body) => (JSON.parse(body) as { content: unknown[] }).content),
    requests: () => ({ ...served }),
    arrivals: () => arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
