import { readFileSync } from 'node:fs';
import { Agent, buildConnector } from 'undici';
import { describe, expect, it } from 'vitest';
import type { TunnelApiClient } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { Limiter } from '../../lib/foundation/concurrency/limiter.ts';
import { json, text } from './scriptedServer.ts';
import { scriptedClientPerTest } from './testClient.ts';

const historyFixture = JSON.parse(
  readFileSync(new URL('../fixtures/history-documented.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const DAY = '2025-02-06';

// The file's scripted server, and a fresh client of it for every test (closed after it).
const { server, client, reconfigure } = scriptedClientPerTest();

/** Page `n` of a day, each request as its path. */
const pageOf = (limiter: Limiter, api: TunnelApiClient, n: number) =>
  limiter.runGated((gate) => api.historyPage(DAY, DAY, n, 10, { gate }));

describe('the request gate (a caller limit on exchanges in flight)', () => {
  it('writes the waiting request to its socket before the page that held the slot is parsed and returned', async () => {
    server.script(json(200, historyFixture), json(200, historyFixture));
    // Every request line the client writes, in order (the socket's own writes).
    const written: string[] = [];
    const connector = buildConnector({});
    const dispatcher = new Agent({
      connect: (opts, callback) =>
        connector(opts, (error, socket) => {
          if (socket) {
            const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
            socket.write = ((chunk: unknown, ...rest: unknown[]) => {
              const line = String(chunk).split('\r\n')[0] ?? '';
              if (line.startsWith('GET ')) written.push(line);
              return write(chunk, ...rest);
            }) as typeof socket.write;
          }
          (callback as (e: Error | null, s: unknown) => void)(error, socket);
        }),
    });
    try {
      reconfigure({ dispatcher });
      const limiter = new Limiter(1);
      // Page 1 waits for page 0's slot. undici writes a waiting request only in a later turn of the event
      // loop (a check phase for a reused socket, the connect for a new one), so page 1 is on the wire
      // when page 0 reaches its caller only if the client parsed page 0 after that write.
      const writtenWhenFirstReturned = pageOf(limiter, client, 0).then(() => written.length);
      const second = pageOf(limiter, client, 1);
      expect(await writtenWhenFirstReturned).toBe(2);
      expect((await second).content).toHaveLength(1);
    } finally {
      await client.close();
      await dispatcher.close();
    }
  });

  it('holds a slot per attempt: a retry waits behind a request that took the slot meanwhile', async () => {
    server.script(text(503, 'busy'), json(200, historyFixture), json(200, historyFixture));
    const limiter = new Limiter(1);
    const first = pageOf(limiter, client, 0);
    const second = pageOf(limiter, client, 1);
    await Promise.all([first, second]);
    // Page 0's 503 gave the slot back: page 1 went next, then page 0's retry.
    expect(server.requests.map((r) => r.url?.replace(/.*\?/, ''))).toEqual([
      'page=0&size=10',
      'page=1&size=10',
      'page=0&size=10',
    ]);
    expect(limiter.running).toBe(0);
  });

  it('never has more exchanges in flight than the limit, with pages parsed outside it', async () => {
    let inFlight = 0;
    let most = 0;
    let arrived = 0;
    let started = 0;
    const held: (() => void)[] = [];
    // Responses wait until every exchange the limiter let start has reached the server (events, no timer):
    // a limiter that let a fourth through has it arrive before any answer, on any machine.
    const slow = (req: unknown, res: import('node:http').ServerResponse) => {
      most = Math.max(most, ++inFlight);
      arrived++;
      held.push(() => {
        inFlight--;
        json(200, historyFixture)(req as never, res);
      });
      if (arrived === started) for (const send of held.splice(0)) send();
    };
    server.script(...Array.from({ length: 12 }, () => slow));
    const limiter = new Limiter(3);
    const pages = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        limiter.runGated((gate) => {
          started++;
          return client.historyPage(DAY, DAY, n, 10, { gate });
        }),
      ),
    );
    expect(pages).toHaveLength(12);
    expect(most).toBe(3);
    expect(limiter.running).toBe(0);
  });
});
