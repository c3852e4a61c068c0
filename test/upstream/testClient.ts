import { inspect } from 'node:util';
import { afterEach, beforeEach } from 'vitest';
import {
  createTunnelApiClient,
  type TunnelApiClient,
  type TunnelApiClientOptions,
} from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { jsonLineLogger } from '../../lib/foundation/log/logger.ts';

import { readThrough, serverPer } from '../support/serverPer.ts';
import { type ScriptedServer, startScriptedServer } from './scriptedServer.ts';

export const API_KEY = 'pk_test_S3cr3t-KEY-0123456789abcdef';

/** A ManualClock that records every wait the client asks for. */
export class RecordingClock extends ManualClock {
  readonly sleeps: number[] = [];
  override async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    await super.sleep(ms);
  }
}

export interface TestClient {
  client: TunnelApiClient;
  clock: RecordingClock;
  /** Parsed JSON log lines. */
  logs: Record<string, unknown>[];
  /** Raw log lines, for secret scans. */
  lines: string[];
}

/** A client against `baseUrl` with a fake clock, small backoff and captured logs. */
export function testClient(baseUrl: string, overrides: Partial<TunnelApiClientOptions> = {}): TestClient {
  const clock = new RecordingClock('2025-03-01T12:00:00Z');
  const lines: string[] = [];
  const client = createTunnelApiClient({
    baseUrl,
    apiKey: API_KEY,
    clock,
    random: () => 0.5,
    logger: jsonLineLogger('debug', (line) => lines.push(line)),
    retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 50, budgetMs: 10_000 },
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    ...overrides,
  });
  return {
    client,
    clock,
    lines,
    get logs() {
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection, got a value');
}

/** Everything an error exposes: message, stack, own fields and the whole cause chain. */
export function everything(error: unknown): string {
  return inspect(error, {
    depth: Number.POSITIVE_INFINITY,
    showHidden: true,
    breakLength: Number.POSITIVE_INFINITY,
  });
}

/**
 * The scripted server of a file and a fresh client of it for every test (its script and requests cleared
 * first, the client closed after): `server`, `t` and `client` read through to the current ones.
 */
export function scriptedClientPerTest(overrides: Partial<TunnelApiClientOptions> = {}): {
  server: ScriptedServer;
  t: TestClient;
  client: TunnelApiClient;
  /** Replaces this test's client by one with other options (closed after the test like the first). */
  reconfigure(options: Partial<TunnelApiClientOptions>): void;
} {
  const server = serverPer(startScriptedServer);
  let current: TestClient | undefined;
  const replaced: TestClient[] = [];
  beforeEach(() => {
    server.clear();
    current = testClient(server.url, overrides);
  });
  afterEach(async () => {
    for (const c of replaced.splice(0)) await c.client.close();
    await current?.client.close();
  });
  return {
    server,
    t: readThrough(() => current, 'the test client'),
    client: readThrough(() => current?.client, 'the test client'),
    reconfigure: (options) => {
      if (current) replaced.push(current);
      current = testClient(server.url, options);
    },
  };
}
