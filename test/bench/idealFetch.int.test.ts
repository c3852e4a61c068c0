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

/** A server answering every path after `delayMs`, counting requests in flight. */
async function delayedServer(
  delayMs: number,
  body: (path: string) => [number, string] = () => [200, '{"content":[]}'],
) {
  const seen: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      const [status, text] = body(req.url ?? '');
      inFlight--;
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    }, delayMs);
  });
  const s = server;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { url, seen, maxInFlight: () => maxInFlight };
}

describe('idealFetch', () => {
  it('asks for every path once, with exactly `concurrency` requests in flight', async () => {
    const { url, seen, maxInFlight } = await delayedServer(30);
    const paths = Array.from({ length: 7 }, (_, i) => `/p?page=${i}`);
    const result = await idealFetch(url, paths, { concurrency: 2 });
    expect(result.requests).toBe(7);
    expect([...seen].sort()).toEqual([...paths].sort());
    expect(maxInFlight()).toBe(2);
    // Seven requests two at a time are four rounds of the server's delay at least.
    expect(result.seconds).toBeGreaterThanOrEqual((4 * 30 - 5) / 1000);
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
