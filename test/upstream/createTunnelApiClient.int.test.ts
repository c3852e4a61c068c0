import { readFileSync } from 'node:fs';
import { Client } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TunnelApiClient } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { DOCUMENTED_ACTIVE_SESSION, DOCUMENTED_HISTORY_RECORD } from '../fixtures/documentedValues.ts';
import { type Handler, json, type ScriptedServer, startScriptedServer, text } from './scriptedServer.ts';
import { API_KEY, testClient } from './testClient.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));
const activeFixture = fixture('active-documented.json') as Record<string, unknown>[];
const historyFixture = fixture('history-documented.json') as Record<string, unknown>;

let server: ScriptedServer;
let client: TunnelApiClient | undefined;

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.clear());
afterEach(async () => {
  await client?.close();
  client = undefined;
});

function page(content: unknown[], extra: Record<string, unknown> = {}) {
  return { ...historyFixture, content, numberOfElements: content.length, ...extra };
}

describe('createTunnelApiClient', () => {
  it('parses the documented active-session response field by field', async () => {
    server.script(json(200, activeFixture));
    client = testClient(server.url).client;
    const sessions = await client.listActive();
    expect(sessions).toStrictEqual([DOCUMENTED_ACTIVE_SESSION]);
    expect(sessions).toStrictEqual(activeFixture);
  });

  it('parses the documented history page field by field', async () => {
    server.script(json(200, historyFixture));
    client = testClient(server.url).client;
    const result = await client.historyPage('2025-02-06', '2025-02-06', 0, 10);
    const sort = { empty: true, sorted: false, unsorted: true };
    expect(result).toStrictEqual({
      totalElements: 1,
      totalPages: 1,
      size: 10,
      content: [DOCUMENTED_HISTORY_RECORD],
      rejected: [],
      number: 0,
      sort,
      pageable: { pageNumber: 0, pageSize: 10, sort, offset: 0, paged: true, unpaged: false },
      numberOfElements: 1,
      first: true,
      last: true,
      empty: false,
    });
    expect({ ...result, rejected: undefined }).toStrictEqual({ ...historyFixture, rejected: undefined });
  });

  it('sends an authenticated JSON GET to the documented paths', async () => {
    server.script(json(200, historyFixture), json(200, []));
    client = testClient(server.url).client;
    await client.historyPage('2025-02-06', '2025-02-07', 3, 50);
    await client.listActive();
    expect(server.requests.map((r) => [r.method, r.url])).toEqual([
      ['GET', '/backend/api/v1/session/history/2025-02-06/2025-02-07?page=3&size=50'],
      ['GET', '/backend/api/v1/session/active'],
    ]);
    for (const { headers } of server.requests) {
      expect(headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(headers.accept).toBe('application/json');
      expect(headers['user-agent']).toMatch(/^tunnel-archiver/);
    }
  });

  it.each(['/', '/proxy', '/proxy/'])(
    'joins a base URL ending in %o without doubling slashes',
    async (suffix) => {
      server.script(json(200, []));
      client = testClient(server.url + suffix).client;
      await client.listActive();
      const prefix = suffix.replace(/\/$/, '');
      expect(server.requests[0]?.url).toBe(`${prefix}/backend/api/v1/session/active`);
    },
  );

  it('keeps a page with one invalid record, rejecting only that record, and keeps unknown fields', async () => {
    const good = {
      ...(historyFixture.content as Record<string, unknown>[])[0],
      tunnel_id: 'extra-1',
      nested: { a: 1 },
    };
    const bad = { ...good, start_time: 'yesterday', port: 'eighty' };
    server.script(
      json(
        200,
        page([good, bad, good], {
          totalElements: 3,
          serverVersion: 'v9',
          pageable: { ...(historyFixture.pageable as object), extraPageable: true },
        }),
      ),
    );
    client = testClient(server.url).client;
    const result = await client.historyPage('2025-02-06', '2025-02-06', 0, 10);
    expect(result.content).toStrictEqual([good, good]);
    expect(result.content[0]).toMatchObject({ tunnel_id: 'extra-1', nested: { a: 1 } });
    expect(result.rejected).toHaveLength(1);
    expect(result.rejected[0]?.raw).toStrictEqual(bad);
    expect(result.rejected[0]?.reason).toMatch(/^content\[1\]: /);
    expect(result.rejected[0]?.reason).toContain("start_time: 'yesterday' is not an ISO 8601 date-time");
    expect(result.rejected[0]?.reason).toContain('port:');
    expect(result).toMatchObject({
      serverVersion: 'v9',
      totalElements: 3,
      pageable: { extraPageable: true },
    });
  });

  const mixedTraffic = () => {
    /** A 200 KB HTML error page in 20 KB chunks, so an early `destroy()` would cost the socket. */
    const html =
      (status: number): Handler =>
      (_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.write(`<html><head><title>${status} Bad Gateway</title></head><body>`);
        let left = 10;
        const more = () => {
          if (left-- === 0) return void res.end('</body></html>');
          res.write('x'.repeat(20_000), () => setTimeout(more, 1));
        };
        more();
      };
    server.script(
      json(200, []),
      html(502),
      json(200, historyFixture),
      json(401, { message: 'nope' }),
      json(200, []),
      text(404, ''),
      json(200, []),
      json(429, {}, { 'retry-after': '0' }),
      json(200, []),
    );
    return async (api: TunnelApiClient) => {
      await api.listActive();
      await api.historyPage('2025-02-06', '2025-02-06', 0, 10);
      await expect(api.listActive()).rejects.toMatchObject({ code: 'AUTH_REJECTED' });
      await api.listActive();
      await expect(api.listActive()).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await api.listActive();
      await api.listActive();
      expect(server.requests).toHaveLength(9);
    };
  };

  it.each([
    ['one record more than asked for, in a small body', 11, 10],
    ['2,001 records in a large body (parsed in pieces)', 2001, 2000],
  ])('refuses a history page holding more items than asked for: %s', async (_what, items, size) => {
    const records = Array.from({ length: items }, () => historyFixture.content).flat();
    server.script(json(200, page(records)), json(200, page(records)));
    client = testClient(server.url).client;
    const error = (await client.historyPage('2025-02-06', '2025-02-06', 0, size).then(
      () => undefined,
      (e: unknown) => e,
    )) as ArchiverError;
    expect(error).toBeInstanceOf(ArchiverError);
    expect(error).toMatchObject({ code: 'BODY_TOO_LARGE', status: 200, retryable: false });
    expect(error.details).toMatchObject({ maxItems: size });
    expect(error.details?.items).toBeGreaterThan(size);
    expect(error.message).toMatch(
      new RegExp(
        `^GET /backend/api/v1/session/history/2025-02-06/2025-02-06\\?page=0&size=${size}: the page holds (at least )?\\d+ items, more than the ${size} asked for; the page is not taken$`,
      ),
    );
    // Not retried: no page of the size asked for can come of asking again.
    expect(server.requests).toHaveLength(1);
    // The same body is a page when the size asked for holds its items.
    server.clear();
    server.script(json(200, page(records)));
    await expect(client.historyPage('2025-02-06', '2025-02-06', 0, items)).resolves.toMatchObject({
      content: expect.any(Array),
    });
  });

  it('consumes every body, so a single supplied connection serves success, error and retry responses', async () => {
    const run = mixedTraffic();
    const dispatcher = new Client(server.url);
    const before = server.connections();
    client = testClient(server.url, { dispatcher }).client;
    await run(client);
    expect(server.connections() - before).toBe(1);
    await client.close();
    expect(dispatcher.closed).toBe(false);
    await dispatcher.close();
  });

  it('reuses keep-alive connections with its own agent', async () => {
    const run = mixedTraffic();
    const before = server.connections();
    client = testClient(server.url).client;
    await run(client);
    // undici's pool may open a second socket when a request races the first one's release.
    expect(server.connections() - before).toBeLessThanOrEqual(2);
  });
});
