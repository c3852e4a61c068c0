import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { assertOneSnapshot, startReplayServer } from '../../bench/replayServer.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../../devkit/startEmulator.ts';
import { type EmulatorClock, fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';

const H = '/backend/api/v1/session/history';
const page = (day: string, n: number, total: number) => ({
  path: `${H}/${day}/${day}?page=${n}&size=2`,
  body: JSON.stringify({ content: [], totalElements: total, number: n, size: 2 }),
});

describe('the replay server', () => {
  it('refuses a recording whose pages of one day answered two totals, and takes one whose days each answered one', () => {
    expect(() =>
      assertOneSnapshot([page('2026-11-01', 0, 5), page('2026-11-02', 0, 3), page('2026-11-01', 1, 6)]),
    ).toThrow(/not one snapshot: 1 day\(s\).*2026-11-01: 5, 6.*frozen clock/);
    expect(() =>
      assertOneSnapshot([page('2026-11-01', 0, 5), page('2026-11-02', 0, 3), page('2026-11-01', 1, 5)]),
    ).not.toThrow();
  });

  it('refuses to record from an emulator whose clock moves while it records, where a frozen one records', async () => {
    const now = new Date();
    const days = dayRange(addDays(toDay(now), -2), toDay(now));
    // An hour later at every look: sessions end, and rows arrive late, between two pages of one day.
    const ticking = fixedClock(now);
    const moving: EmulatorClock = {
      now: () => {
        ticking.advance(3_600_000);
        return ticking.now();
      },
    };
    for (const [clock, recorded] of [
      [moving, false],
      [fixedClock(now), true],
    ] as const) {
      const emulator = await startEmulator({
        seed: 5,
        clock,
        maxPageSize: 10,
        faults: { stableOrder: true },
      });
      try {
        const replay = startReplayServer(emulator.url, days, { pageSize: 10, concurrency: 2 });
        if (recorded) await (await replay).close();
        else await expect(replay).rejects.toThrow(/not one snapshot/);
      } finally {
        await emulator.close();
      }
    }
  });

  it('answers page 1 of a day of one page from memory, as a first walk asks for it beside page 0', async () => {
    const now = new Date();
    const day = addDays(toDay(now), -3);
    // Every day holds 100 to 1,500 sessions, whatever the date: at pages of 2000, one page a day (the
    // default dataset's heavy days, which fall on dates that move with the calendar, hold more).
    const emulator = await startEmulator({
      seed: 5,
      clock: fixedClock(now),
      faults: { stableOrder: true },
      dataset: { quietDayRate: 0, normalMin: 100, normalMax: 1_500, heavyMin: 100, heavyMax: 1_500 },
    });
    let replay: Awaited<ReturnType<typeof startReplayServer>> | undefined;
    try {
      replay = await startReplayServer(emulator.url, [day], { pageSize: 2000, concurrency: 2 });
      expect(replay.pages).toBe(1);
    } finally {
      // Closed before the request: an answer can only come from what the replay holds.
      await emulator.close();
    }
    try {
      const res = await request(`${replay.url}${H}/${day}/${day}?page=1&size=2000`, {
        headers: { authorization: `Bearer ${EMULATOR_PAID_KEY}` },
      });
      expect(res.statusCode).toBe(200);
      expect((JSON.parse(await res.body.text()) as { content: unknown[] }).content).toEqual([]);
    } finally {
      await replay.close();
    }
  });
});
