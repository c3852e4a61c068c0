import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { idealFetch } from '../../bench/idealFetch.ts';

let server: Server | undefined;

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
});

/**
 * A server answering every path `delayMs` after it is released, counting requests in flight. With `hold`,
 * requests are released only once `hold.inFlight` are in flight (or all `hold.total` have arrived): events,
 * never a timer, so a client that keeps that many in flight reaches it however slowly the machine runs (one
 * that never does gets no answer, and the test's own timeout fails it).
 */
async function delayedServer(
  delayMs: number,
  body: (path: string) => [number, string] = () => [200, '{"content":[]}'],
  hold?: { inFlight: number; total: number },
) {
  const seen: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let held: (() => void)[] = [];
  let firstAt: number | undefined;
  let lastAnsweredAt = 0;
  const release = () => {
    if (hold && inFlight < hold.inFlight && seen.length < hold.total) return;
    const now = held;
    held = [];
    for (const answer of now) setTimeout(answer, delayMs);
  };
  server = createServer((req, res) => {
    firstAt ??= performance.now();
    seen.push(req.url ?? '');
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    held.push(() => {
      const [status, text] = body(req.url ?? '');
      inFlight--;
      lastAnsweredAt = performance.now();
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
    release();
  });
  const s = server;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    maxInFlight: () => maxInFlight,
    /** ms from the first request's arrival to the last answer, on the server's side. */
    servedMs: () => lastAnsweredAt - (firstAt ?? lastAnsweredAt),
  };
}

describe('idealFetch', () => {
  it('asks for every path once, with exactly `concurrency` requests in flight', async () => {
    const paths = Array.from({ length: 7 }, (_, i) => `/p?page=${i}`);
    const { url, seen, maxInFlight, servedMs } = await delayedServer(30, undefined, {
      inFlight: 2,
      total: paths.length,
    });
    const result = await idealFetch(url, paths, { concurrency: 2 });
    expect(result.requests).toBe(7);
    expect([...seen].sort()).toEqual([...paths].sort());
    expect(maxInFlight()).toBe(2);
    // The client's time covers the server's, from its first request to its last answer.
    expect(result.seconds * 1000).toBeGreaterThanOrEqual(servedMs());
  });

  it('fails on an answer that is not 200 or not JSON, as the bound does', async () => {
    const { url } = await delayedServer(1, (path) =>
      path.includes('bad-status')
        ? [503, '{}']
        : path.includes('bad-json')
          ? [200, '{"content":']
          : [200, '{}'],
    );
    await expect(idealFetch(url, ['/ok', '/bad-status'], { concurrency: 2 })).rejects.toThrow(/HTTP 503/);
    await expect(idealFetch(url, ['/ok', '/bad-json'], { concurrency: 2 })).rejects.toThrow(SyntaxError);
  });
});
