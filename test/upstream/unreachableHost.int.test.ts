import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { unreachableReason } from '../../lib/archive/upstream/retryPolicy.ts';
import { json, startScriptedServer } from './scriptedServer.ts';
import { rejectionOf, testClient } from './testClient.ts';

const ACTIVE = JSON.parse(
  readFileSync(new URL('../fixtures/active-documented.json', import.meta.url), 'utf8'),
);

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('unreachableReason', () => {
  it.each([
    ['ENOTFOUND', /does not resolve/],
    ['EAI_AGAIN', /DNS/],
    ['ECONNREFUSED', /refused/],
  ])('names %s as an unreachable host', (code, says) => {
    expect(unreachableReason(code)).toMatch(says);
  });

  it.each(['ECONNRESET', 'UND_ERR_SOCKET', 'ETIMEDOUT', undefined, 42])(
    'leaves %s to the retry policy',
    (code) => {
      expect(unreachableReason(code)).toBeUndefined();
    },
  );
});

describe('createTunnelApiClient on an unreachable host', () => {
  it('fails the first request without a retry, with a clear message, on a host name that does not resolve', async () => {
    const t = testClient('http://nonexistent.invalid');
    const error = await rejectionOf(t.client.listActive());
    await t.client.close();
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryable: false });
    expect(error.message).toMatch(
      /cannot reach the tunnel API at http:\/\/nonexistent\.invalid: .*(ENOTFOUND|EAI_AGAIN)/,
    );
    expect(error.message).toContain('TUNNEL_API_BASE_URL');
    expect(t.clock.sleeps).toEqual([]);
  });

  it('fails the first request without a retry on a closed port', async () => {
    const t = testClient(`http://127.0.0.1:${await closedPort()}`);
    const error = await rejectionOf(t.client.listActive());
    await t.client.close();
    expect(error.message).toMatch(/connection was refused .*ECONNREFUSED/);
    expect(t.clock.sleeps).toEqual([]);
  });

  it('retries a refused connection once the client has had a successful response', async () => {
    const server = await startScriptedServer();
    const t = testClient(server.url);
    server.script(json(200, ACTIVE));
    await t.client.listActive();
    await server.close();
    const error = await rejectionOf(t.client.listActive());
    await t.client.close();
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toMatch(/after 4 attempt/);
    expect(t.clock.sleeps).toHaveLength(3);
  });
});
