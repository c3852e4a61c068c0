import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { outageFor } from '../../lib/archive/emulator/faults.ts';
import { daysByKind, get, historyPath, NOW } from './emulatorKit.ts';

const DAY = daysByKind().normal.find((d) => d > '2025-02-01')!;
const PATH = historyPath(DAY, DAY, { size: 50 });

let wall = 1_000_000;
let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await startEmulator({ seed: 1, clock: fixedClock(NOW), wallNow: () => wall });
});
afterEach(() => emu.setFaults({}));
afterAll(() => emu.close());

async function statuses(n: number, path = PATH): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await get(emu.url, path)).status);
  return out;
}

describe('faults', () => {
  it.each([
    ['seconds', (v: unknown) => expect(v).toBe('7')],
    ['http-date', (v: unknown) => expect(Date.parse(String(v))).toBe(wall - (wall % 1000) + 7000)],
    ['none', (v: unknown) => expect(v).toBeUndefined()],
  ] as const)('answers 429 with Retry-After style %s', async (style, check) => {
    emu.setFaults({ rate429: 1, retryAfter: style, retryAfterSeconds: 7 });
    const res = await get(emu.url, PATH);
    expect(res.status).toBe(429);
    check(res.headers['retry-after']);
  });

  it('answers 500, 502 and 503 with HTML bodies', async () => {
    emu.setFaults({ rate5xx: 1 });
    const seen = new Set<number>();
    for (let i = 0; i < 30; i++) {
      const res = await get(emu.url, PATH);
      seen.add(res.status);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toMatch(/^<html>/);
    }
    expect(seen).toEqual(new Set([500, 502, 503]));
  });

  it('answers 503 to everything during an outage and recovers when it ends (real time)', async () => {
    emu.setFaults(outageFor(30_000, wall));
    expect(await statuses(3)).toEqual([503, 503, 503]);
    expect((await get(emu.url, '/backend/api/v1/session/active')).status).toBe(503);
    wall += 30_000;
    expect(await statuses(2)).toEqual([200, 200]);
  });

  it('destroys the socket without a response', async () => {
    emu.setFaults({ rateReset: 1 });
    const before = emu.stats().faultsInjected.reset ?? 0;
    await expect(get(emu.url, PATH)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(emu.stats().faultsInjected.reset).toBe(before + 1);
  });

  it('cuts a 200 body short of its Content-Length and kills the socket', async () => {
    emu.setFaults({ rateTruncate: 1, truncateVariant: 'cut' });
    const res = await request(`${emu.url}${PATH}`, {
      headers: { authorization: `Bearer ${EMULATOR_PAID_KEY}` },
    });
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBeGreaterThan(100);
    await expect(res.body.text()).rejects.toThrow();
  });

  it('sends a complete-looking body that is not valid JSON', async () => {
    emu.setFaults({ rateTruncate: 1, truncateVariant: 'invalid-json' });
    const res = await get(emu.url, PATH);
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(res.text)).toBe(Number(res.headers['content-length']));
    expect(res.text.endsWith('}')).toBe(true);
    expect(() => JSON.parse(res.text)).toThrow(SyntaxError);
  });

  it('delays responses by delayMs', async () => {
    emu.setFaults({ delayMs: 150 });
    const delayed = emu.stats().faultsInjected.delay ?? 0;
    // Simulated time: the emulator's timers move only when the test moves them.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let answered = false;
      const response = get(emu.url, PATH).then((r) => {
        answered = true;
        return r;
      });
      // The request has arrived and waits (vi.waitFor would move the fake timers: polled on real I/O instead).
      while ((emu.stats().faultsInjected.delay ?? 0) === delayed) await new Promise(setImmediate);
      await vi.advanceTimersByTimeAsync(149);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await response).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('injects probabilistic faults at about the configured rate, reproducibly per seed', async () => {
    emu.setFaults({ rate429: 0.3, seed: 42 });
    const first = await statuses(100);
    emu.setFaults({ rate429: 0.3, seed: 42 });
    const second = await statuses(100);
    expect(second).toEqual(first);
    const limited = first.filter((s) => s === 429).length;
    expect(limited).toBeGreaterThan(15);
    expect(limited).toBeLessThan(45);
  });

  it('turns every fault off with setFaults({})', async () => {
    emu.setFaults({ rate429: 1, rate5xx: 1, rateReset: 1 });
    emu.setFaults({});
    expect(await statuses(5)).toEqual([200, 200, 200, 200, 200]);
  });

  it('counts requests, statuses and injected faults', async () => {
    const before = emu.stats();
    emu.setFaults({ rate429: 1 });
    await statuses(2);
    const after = emu.stats();
    expect(after.requests - before.requests).toBe(2);
    expect((after.byStatus['429'] ?? 0) - (before.byStatus['429'] ?? 0)).toBe(2);
    expect((after.faultsInjected['429'] ?? 0) - (before.faultsInjected['429'] ?? 0)).toBe(2);
  });
});

describe('ordering', () => {
  it('reorders the same page between requests by default (unsorted)', async () => {
    const a = await get(emu.url, PATH);
    const b = await get(emu.url, PATH);
    expect(JSON.parse(a.text).totalElements).toBe(JSON.parse(b.text).totalElements);
    expect(a.text).not.toBe(b.text);
  });

  it('keeps one arbitrary, non-chronological order with stableOrder', async () => {
    emu.setFaults({ stableOrder: true });
    const a = await get(emu.url, PATH);
    const b = await get(emu.url, PATH);
    expect(a.text).toBe(b.text);
    const starts = (JSON.parse(a.text).content as { start_time: string }[]).map((r) => r.start_time);
    expect(starts).not.toEqual([...starts].sort());
  });
});
