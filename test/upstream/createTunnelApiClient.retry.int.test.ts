import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import {
  cutOff,
  dropConnection,
  type Handler,
  json,
  silent,
  stalledBody,
  text,
  truncatedJson,
} from './scriptedServer.ts';
import { rejectionOf, scriptedClientPerTest, testClient } from './testClient.ts';

const SORT = { empty: true, sorted: false, unsorted: true };
const EMPTY_PAGE = {
  totalElements: 0,
  totalPages: 0,
  size: 10,
  content: [],
  number: 0,
  sort: SORT,
  pageable: { pageNumber: 0, pageSize: 10, sort: SORT, offset: 0, paged: true, unpaged: false },
  numberOfElements: 0,
  first: true,
  last: true,
  empty: true,
};
const HISTORY_PATH = '/backend/api/v1/session/history/2025-02-06/2025-02-06?page=0&size=10';
const html503: Handler = text(
  503,
  '<html><head><title>503 Service Unavailable</title></head><body>down</body></html>',
  'text/html',
);

const { server, t, client, reconfigure } = scriptedClientPerTest({
  headersTimeoutMs: 500,
  bodyTimeoutMs: 500,
});

const history = () => client.historyPage('2025-02-06', '2025-02-06', 0, 10);

describe('createTunnelApiClient retries', () => {
  it.each<[string, Handler]>([
    ['429 without Retry-After', json(429, { message: 'slow down' })],
    ['503 with an HTML body', html503],
    ['500 with an empty body', text(500, '')],
    ['a connection reset before the response', dropConnection],
    ['a 200 cut off mid-body', cutOff(EMPTY_PAGE)],
    ['a complete 200 with truncated JSON', truncatedJson(EMPTY_PAGE)],
    ['a 200 with valid JSON of the wrong shape', json(200, { ...EMPTY_PAGE, totalElements: 'many' })],
    ['a 200 with a bare array instead of a page', json(200, [])],
    ['a body that stalls beyond bodyTimeout', stalledBody],
    ['headers that never come (headersTimeout)', silent],
  ])('retries after %s and then succeeds', async (_what, failure) => {
    server.script(failure, failure, json(200, EMPTY_PAGE));
    const page = await history();
    expect(page).toStrictEqual({ ...EMPTY_PAGE, rejected: [] });
    expect(server.requests).toHaveLength(3);
    expect(t.clock.sleeps).toHaveLength(2);
    const warns = t.logs.filter((l) => l.level === 'warn');
    expect(warns).toHaveLength(2);
    expect(warns[0]).toMatchObject({ path: HISTORY_PATH, attempt: 1, delayMs: t.clock.sleeps[0] });
    expect(warns[1]).toMatchObject({ attempt: 2, delayMs: t.clock.sleeps[1] });
    expect(warns[0]?.status ?? warns[0]?.code).toBeDefined();
  });

  it('backs off exponentially with jitter inside maxDelay', async () => {
    server.script(html503, html503, html503, json(200, []));
    await client.listActive();
    expect(t.clock.sleeps).toEqual([2, 5, 10]); // random 0.5 of windows 5, 10, 20
  });

  it.each<[string, Record<string, string>, number]>([
    ['delta-seconds', { 'retry-after': '3' }, 3_000],
    ['an HTTP-date', { 'retry-after': 'Sat, 01 Mar 2025 12:00:07 GMT' }, 7_000],
    ['none (plain backoff)', {}, 2],
    ['garbage (plain backoff)', { 'retry-after': 'later' }, 2],
  ])('honours a 429 Retry-After given as %s', async (_form, headers, expectedSleep) => {
    server.script(json(429, {}, headers), json(200, []));
    await client.listActive();
    expect(t.clock.sleeps).toEqual([expectedSleep]);
    expect(t.logs.find((l) => l.level === 'warn')).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      attempt: 1,
    });
  });

  it('rides out an outage longer than maxDelay within the budget', async () => {
    reconfigure({
      retry: { maxAttempts: 20, baseDelayMs: 5, maxDelayMs: 20, budgetMs: 10_000 },
    });
    server.script(...Array.from({ length: 12 }, () => html503), json(200, []));
    await expect(client.listActive()).resolves.toEqual([]);
    expect(server.requests).toHaveLength(13);
    expect(Math.max(...t.clock.sleeps)).toBeLessThanOrEqual(20);
  });

  it.each<[string, Handler, string, number | undefined]>([
    ['429s', json(429, { message: 'slow down' }), 'RATE_LIMITED', 429],
    ['503s', html503, 'UPSTREAM_UNAVAILABLE', 503],
    ['resets', dropConnection, 'UPSTREAM_UNAVAILABLE', undefined],
    ['invalid 200s', json(200, { nope: true }), 'SCHEMA_MISMATCH', 200],
    ['truncated 200s', truncatedJson(EMPTY_PAGE), 'SCHEMA_MISMATCH', 200],
  ])('gives up after maxAttempts of %s with a clear %s', async (_what, failure, code, status) => {
    server.script(failure, failure, failure, failure);
    const error = await rejectionOf(history());
    expect(error).toBeInstanceOf(ArchiverError);
    expect(error).toMatchObject({ code, status, retryable: true });
    expect(error.message).toContain(`GET ${HISTORY_PATH}`);
    expect(error.message).toContain('after 4 attempt(s)');
    expect(error.message).toMatch(/in \d+ ms/);
    if (status !== undefined) expect(error.message).toContain(`last status ${status}`);
    expect(error.cause).toBeInstanceOf(ArchiverError);
    expect(error.details).toMatchObject({ attempts: 4, lastStatus: status });
    expect(server.requests).toHaveLength(4);
  });

  it('gives up at once when Retry-After outlasts the budget', async () => {
    server.script(json(429, {}, { 'retry-after': '3600' }), json(200, []));
    const error = await rejectionOf(client.listActive());
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(error.message).toContain('Retry-After');
    expect(server.requests).toHaveLength(1);
    expect(t.clock.sleeps).toEqual([]);
  });

  it('stops when the time budget is spent, even with attempts left', async () => {
    reconfigure({
      retry: { maxAttempts: 100, baseDelayMs: 400, maxDelayMs: 400, budgetMs: 1_000 },
    });
    server.script(...Array.from({ length: 20 }, () => html503));
    const error = await rejectionOf(client.listActive());
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503 });
    expect(error.message).toContain('budget');
    expect(t.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1_000);
  });

  it('reports a refused first connection as UPSTREAM_UNAVAILABLE at once (see unreachableHost.int.test.ts)', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refused = testClient(`http://127.0.0.1:${port}`);
    const error = await rejectionOf(refused.client.listActive());
    await refused.client.close();
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(error.message).toContain('ECONNREFUSED');
    expect(refused.clock.sleeps).toHaveLength(0);
  });
});
