import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { Day } from '../lib/clock/day.ts';
import { EMULATOR_PAID_KEY } from '../lib/emulator/startEmulator.ts';
import { fetchBound } from './fetchBound.ts';

export interface ReplayServer {
  url: string;
  /** Pages recorded (and served from memory). */
  pages: number;
  /** Every record of every recorded page, in page order. */
  records(): unknown[];
  close(): Promise<void>;
}

/**
 * Records every history page of `days` from the emulator once, then serves those exact bodies from memory
 * on a port of its own, `delayMs` after each request. Both the bound and the archiver then read the same
 * bytes at no server cost: the emulator builds each page by filtering and sorting the whole day, which for
 * a 100k-record day costs more than fetching and parsing the page, and would otherwise be measured as
 * part of both. Anything not recorded (preflight, the active list, other page sizes) is passed through.
 */
export async function startReplayServer(
  emulatorUrl: string,
  days: readonly Day[],
  opts: { pageSize: number; concurrency: number; delayMs?: number },
): Promise<ReplayServer> {
  const recorded = new Map<string, string>();
  await fetchBound(emulatorUrl, days, { ...opts, onPage: (path, body) => recorded.set(path, body) });
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const answer = async (): Promise<void> => {
      const body = recorded.get(path);
      if (body !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        return;
      }
      const upstream = await request(`${emulatorUrl}${path}`, {
        headers: { authorization: req.headers.authorization ?? `Bearer ${EMULATOR_PAID_KEY}` },
      });
      const text = await upstream.body.text();
      res.writeHead(upstream.statusCode, { 'content-type': 'application/json' }).end(text);
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
    records: () =>
      [...recorded.values()].flatMap((body) => (JSON.parse(body) as { content: unknown[] }).content),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
