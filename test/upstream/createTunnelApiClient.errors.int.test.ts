import { describe, expect, it } from 'vitest';
import { createTunnelApiClient } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { type Handler, json, silent, text } from './scriptedServer.ts';
import { API_KEY, everything, rejectionOf, scriptedClientPerTest, testClient } from './testClient.ts';

const bodies: [string, (status: number) => Handler][] = [
  ['a JSON body', (s) => json(s, { status: s, error: 'Bad Request', message: 'date out of range' })],
  [
    'an HTML body',
    (s) =>
      text(s, `<html><head><title>${s} Oops</title></head><body><h1>Oops</h1></body></html>`, 'text/html'),
  ],
  ['an empty body', (s) => text(s, '')],
  ['a huge body', (s) => text(s, 'z'.repeat(500_000))],
];

/** Echoes the request's Authorization header back, as a careless server might. */
const echoAuth =
  (status: number, kind: 'json' | 'html'): Handler =>
  (req, res) => {
    const auth = String(req.headers.authorization);
    const body =
      kind === 'json'
        ? JSON.stringify({ message: `bad token ${auth}`, totalElements: auth })
        : `<title>${auth}</title>`;
    res.writeHead(status, {
      'content-type': kind === 'json' ? 'application/json' : 'text/html',
      location: `/x?k=${auth}`,
    });
    res.end(body);
  };

const { server, t, client } = scriptedClientPerTest();

describe('createTunnelApiClient error mapping', () => {
  describe.each(bodies)('with %s', (_kind, respond) => {
    it.each([
      [
        401,
        'AUTH_REJECTED',
        /^API key rejected \(HTTP 401\): the key is wrong or revoked; create one in the dashboard at http:\/\/127\.0\.0\.1:\d+\/api-keys and set TUNNEL_API_KEY/,
      ],
      [403, 'PLAN_REQUIRED', /^HTTP 403: the account behind this API key is not on the paid plan/],
      [
        400,
        'OUTSIDE_WINDOW',
        /^HTTP 400 for 2025-01-01\/2025-01-02: the history API only serves the last 60 days/,
      ],
      [404, 'NOT_FOUND', /base URL/],
      [418, 'BAD_REQUEST', /HTTP 418/],
      [422, 'BAD_REQUEST', /HTTP 422/],
    ])('maps HTTP %i on a history call to %s without retrying', async (status, code, message) => {
      server.script(respond(status), respond(status));
      const error = await rejectionOf(client.historyPage('2025-01-01', '2025-01-02', 0, 10));
      expect(error).toBeInstanceOf(ArchiverError);
      expect(error).toMatchObject({ code, status, retryable: false });
      expect(error.message).toMatch(message);
      expect(server.requests).toHaveLength(1);
      expect(t.clock.sleeps).toEqual([]);
    });
  });

  it.each([
    [
      'JSON message',
      json(400, { message: 'from date is older than 60 days' }),
      'server said: "from date is older than 60 days"',
    ],
    [
      'HTML title',
      text(400, '<html><title>Bad dates</title></html>', 'text/html'),
      'server said: "Bad dates"',
    ],
    ['plain text', text(400, 'Invalid date\n'), 'server said: "Invalid date"'],
  ])('quotes the server message from a %s', async (_kind, respond, quoted) => {
    server.script(respond);
    const error = await rejectionOf(client.historyPage('2025-01-01', '2025-01-02', 0, 10));
    expect(error.message).toContain(quoted);
  });

  it('maps a 400 on the active list to BAD_REQUEST, not OUTSIDE_WINDOW', async () => {
    server.script(json(400, {}));
    await expect(client.listActive()).rejects.toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });

  it('maps a redirect to NOT_FOUND and names its target', async () => {
    server.script(text(301, '', 'text/plain', { location: 'https://elsewhere.example/' }));
    const error = await rejectionOf(client.listActive());
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 301 });
    expect(error.message).toContain('https://elsewhere.example/');
  });

  it.each([
    ['an empty day', '', '2025-01-01', 0, 10],
    ['reversed days', '2025-01-02', '2025-01-01', 0, 10],
    ['a non-day', '2025-02-30', '2025-03-01', 0, 10],
    ['a negative page', '2025-01-01', '2025-01-01', -1, 10],
    ['a zero size', '2025-01-01', '2025-01-01', 0, 0],
  ])('refuses %s before any request', async (_what, from, to, page, size) => {
    await expect(client.historyPage(from, to, page, size)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['an empty key', { apiKey: '' }],
    ['a key with a newline', { apiKey: `${API_KEY}\r\nX-Evil: 1` }],
    ['a non-http base URL', { apiKey: API_KEY, baseUrl: 'ftp://example.com' }],
    ['a base URL that is not a URL', { apiKey: API_KEY, baseUrl: 'dashboard.pinggy.io' }],
  ])('rejects %s as CONFIG_INVALID without echoing the key', (_what, options) => {
    let error: unknown;
    try {
      createTunnelApiClient(options);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(everything(error)).not.toContain(API_KEY);
  });
});

describe('createTunnelApiClient secrecy', () => {
  it('keeps the API key out of errors, causes and logs, even when the server echoes it', async () => {
    const failures: Handler[] = [echoAuth(500, 'json'), echoAuth(503, 'html'), echoAuth(200, 'json')];
    server.script(...failures, echoAuth(200, 'json'));
    const errors = [await rejectionOf(client.historyPage('2025-01-01', '2025-01-01', 0, 10))];
    for (const status of [400, 401, 403, 404, 301, 429]) {
      server.clear();
      server.script(...Array.from({ length: 4 }, () => echoAuth(status, status % 2 === 0 ? 'json' : 'html')));
      errors.push(await rejectionOf(client.historyPage('2025-01-01', '2025-01-01', 0, 10)));
    }
    server.clear();
    const destroy: Handler = (req) => req.socket.destroy(new Error(`boom ${req.headers.authorization}`));
    server.script(destroy, destroy, destroy, destroy);
    errors.push(await rejectionOf(client.listActive()));
    expect(errors.map((e) => e.code)).toEqual([
      'SCHEMA_MISMATCH',
      'OUTSIDE_WINDOW',
      'AUTH_REJECTED',
      'PLAN_REQUIRED',
      'NOT_FOUND',
      'NOT_FOUND',
      'RATE_LIMITED',
      'UPSTREAM_UNAVAILABLE',
    ]);
    expect(errors[1]?.message).toContain('bad token Bearer [redacted]');
    for (const error of errors) {
      expect(everything(error)).not.toContain(API_KEY);
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(API_KEY);
    }
    expect(t.lines.length).toBeGreaterThan(0);
    for (const line of t.lines) expect(line).not.toContain(API_KEY);
  });
});

describe('createTunnelApiClient deadlines', () => {
  it('fails with DEADLINE before sending when the signal is already aborted', async () => {
    const error = await rejectionOf(client.listActive({ signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: 'DEADLINE' });
    expect(server.requests).toHaveLength(0);
  });

  it('aborts a request in flight with DEADLINE', async () => {
    const controller = new AbortController();
    server.script((req, res) => {
      silent(req, res);
      controller.abort();
    });
    const error = await rejectionOf(client.listActive({ signal: controller.signal }));
    expect(error).toMatchObject({ code: 'DEADLINE' });
    expect(error.message).toContain('after 1 attempt(s)');
  });

  it('aborts a backoff sleep with DEADLINE instead of waiting it out', async () => {
    const controller = new AbortController();
    const waits: { ms: number; aborted: boolean }[] = [];
    // A simulated clock whose waits end only when aborted: a client that waited the backoff out never returns.
    // The caller's deadline comes while the client waits.
    const clock: Clock = {
      now: () => new Date('2025-03-01T12:00:00Z'),
      sleep: (ms, signal) =>
        new Promise<void>((_resolve, reject) => {
          const wait = { ms, aborted: false };
          waits.push(wait);
          if (!signal) return reject(new Error('a backoff wait that no deadline can end'));
          signal.addEventListener(
            'abort',
            () => {
              wait.aborted = true;
              reject(signal.reason);
            },
            { once: true },
          );
          controller.abort();
        }),
    };
    const simulated = testClient(server.url, { clock });
    server.script(json(503, {}, { 'retry-after': '5' }));
    const error = await rejectionOf(simulated.client.listActive({ signal: controller.signal }));
    await simulated.client.close();
    expect(error).toMatchObject({ code: 'DEADLINE' });
    expect(waits).toEqual([{ ms: 5_000, aborted: true }]);
    expect(server.requests).toHaveLength(1);
  });
});
