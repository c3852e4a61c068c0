import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EMULATOR_FREE_KEY,
  EMULATOR_PAID_KEY,
  type EmulatorHandle,
  startEmulator,
} from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import type { FaultConfig } from '../../lib/archive/emulator/faults.ts';
import type { HistoryRecord } from '../../lib/archive/records/schemas.ts';
import {
  createTunnelApiClient,
  type TunnelApiClient,
} from '../../lib/archive/upstream/createTunnelApiClient.ts';
import { addDays, dayRange } from '../../lib/foundation/clock/day.ts';
import { rejectionOf } from './testClient.ts';

const NOW = '2025-03-01T12:00:00.000Z';
const PAGE_SIZE = 25;

let emulator: EmulatorHandle;
let busyDay: string;

beforeAll(async () => {
  emulator = await startEmulator({ seed: 1, clock: fixedClock(NOW), maxPageSize: PAGE_SIZE });
  // The quietest recent day that still spans several pages: enough paging, little waiting.
  const sizes = dayRange(addDays('2025-03-01', -14), '2025-02-28').map((day) => ({
    day,
    n: emulator.truth(day).length,
  }));
  const candidates = sizes.filter((d) => d.n > 3 * PAGE_SIZE).sort((a, b) => a.n - b.n);
  busyDay = candidates[0]?.day ?? '2025-02-28';
});
afterAll(async () => {
  await emulator.close();
});

/** Real clock and sleeps (the emulator's faults run on real time), with small delays. */
function client(apiKey = EMULATOR_PAID_KEY): TunnelApiClient {
  return createTunnelApiClient({
    baseUrl: emulator.url,
    apiKey,
    retry: { maxAttempts: 40, baseDelayMs: 5, maxDelayMs: 50, budgetMs: 20_000 },
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
  });
}

/** Every page of `day`, in page order, as the engine's walker would fetch them. */
async function walkDay(
  api: TunnelApiClient,
  day: string,
): Promise<{ records: HistoryRecord[]; total: number }> {
  const records: HistoryRecord[] = [];
  const first = await api.historyPage(day, day, 0, PAGE_SIZE);
  records.push(...first.content);
  expect(first.rejected).toEqual([]);
  for (let page = 1; page < first.totalPages; page++) {
    const next = await api.historyPage(day, day, page, PAGE_SIZE);
    expect(next.rejected).toEqual([]);
    expect(next.totalElements).toBe(first.totalElements);
    records.push(...next.content);
  }
  return { records, total: first.totalElements };
}

const injected = () => Object.values(emulator.stats().faultsInjected).reduce((a, b) => a + b, 0);
const canonical = (records: readonly unknown[]) => records.map((r) => JSON.stringify(r)).sort();

describe('createTunnelApiClient against the emulator', () => {
  it('picks a day that spans several pages', () => {
    expect(emulator.truth(busyDay).length).toBeGreaterThan(3 * PAGE_SIZE);
  });

  it.each<[string, () => Partial<FaultConfig>]>([
    ['no faults', () => ({ delayMs: 0 })],
    [
      '429s with Retry-After in seconds',
      () => ({ rate429: 0.3, retryAfter: 'seconds', retryAfterSeconds: 0 }),
    ],
    [
      '429s with Retry-After as an HTTP-date',
      () => ({ rate429: 0.3, retryAfter: 'http-date', retryAfterSeconds: 0 }),
    ],
    ['429s without Retry-After', () => ({ rate429: 0.3, retryAfter: 'none' })],
    ['HTML 5xx', () => ({ rate5xx: 0.3 })],
    ['connection resets', () => ({ rateReset: 0.3 })],
    ['truncated and invalid 200s', () => ({ rateTruncate: 0.3, truncateVariant: 'mixed' })],
    ['slow answers', () => ({ delayMs: 20 })],
    ['a 1.5 s outage', () => ({ outage: { untilMs: Date.now() + 1_500 } })],
    [
      'everything at once',
      () => ({ rate429: 0.15, retryAfter: 'none', rate5xx: 0.15, rateReset: 0.1, rateTruncate: 0.15 }),
    ],
  ])('walks every page of a day and gets exactly truth(day) under %s', async (_name, faults) => {
    const config = faults();
    emulator.setFaults({ ...config, stableOrder: true, seed: 7 });
    const injectedBefore = injected();
    const api = client();
    try {
      const { records, total } = await walkDay(api, busyDay);
      // The faults really happened (the 'no faults' row proves the count starts from zero).
      expect(injected() > injectedBefore).toBe(Object.values(config).some((v) => Boolean(v)));
      const truth = emulator.truth(busyDay);
      expect(total).toBe(truth.length);
      expect(records).toHaveLength(truth.length);
      expect(canonical(records)).toEqual(canonical(truth));
    } finally {
      emulator.setFaults({});
      await api.close();
    }
  });

  it('lists exactly the active sessions under every fault at once', async () => {
    emulator.setFaults({
      rate429: 0.2,
      retryAfter: 'seconds',
      retryAfterSeconds: 0,
      rate5xx: 0.2,
      rateReset: 0.1,
      rateTruncate: 0.2,
      seed: 3,
    });
    const api = client();
    try {
      const expected = emulator.active();
      expect(expected.length).toBeGreaterThan(0);
      expect(await api.listActive()).toStrictEqual(expected);
      expect(emulator.stats().requests).toBeGreaterThan(1);
    } finally {
      emulator.setFaults({});
      await api.close();
    }
  });

  it.each([
    ['a free-plan key', EMULATOR_FREE_KEY, 'PLAN_REQUIRED', 403],
    ['an unknown key', 'not-a-real-key', 'AUTH_REJECTED', 401],
  ])('maps %s to %s on both calls', async (_what, key, code, status) => {
    const api = client(key);
    try {
      await expect(api.listActive()).rejects.toMatchObject({ code, status, retryable: false });
      await expect(api.historyPage(busyDay, busyDay, 0, PAGE_SIZE)).rejects.toMatchObject({ code, status });
    } finally {
      await api.close();
    }
  });

  it('maps a day outside the 60-day window to OUTSIDE_WINDOW with the server message', async () => {
    const api = client();
    try {
      const error = await rejectionOf(api.historyPage('2024-06-01', '2024-06-01', 0, PAGE_SIZE));
      expect(error).toMatchObject({ code: 'OUTSIDE_WINDOW', status: 400 });
      expect(error.message).toContain('2024-06-01/2024-06-01');
      expect(error.message).toContain('server said: "Only data from the last 60 days');
    } finally {
      await api.close();
    }
  });
});
