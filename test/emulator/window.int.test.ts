import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { addDays } from '../../lib/foundation/clock/day.ts';
import { get, historyPath, NOW, TODAY, WINDOW_FIRST } from './emulatorKit.ts';

describe('startEmulator({ windowDays })', () => {
  let sixty: EmulatorHandle;
  let fiftyNine: EmulatorHandle;
  beforeAll(async () => {
    sixty = await startEmulator({ seed: 1, clock: fixedClock(NOW) });
    fiftyNine = await startEmulator({ seed: 1, clock: fixedClock(NOW), windowDays: 59 });
  });
  afterAll(async () => {
    await sixty.close();
    await fiftyNine.close();
  });

  it('keeps 60 days by default: the oldest of them answers 200, the day before 400', async () => {
    expect((await get(sixty.url, historyPath(WINDOW_FIRST, WINDOW_FIRST))).status).toBe(200);
    const before = addDays(WINDOW_FIRST, -1);
    expect((await get(sixty.url, historyPath(before, before))).status).toBe(400);
  });

  it('with 59 days answers 400 for the oldest day a 60-day client asks for', async () => {
    const res = await get(fiftyNine.url, historyPath(WINDOW_FIRST, WINDOW_FIRST));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ status: 400, error: 'Bad Request' });
    const next = addDays(WINDOW_FIRST, 1);
    expect((await get(fiftyNine.url, historyPath(next, TODAY))).status).toBe(200);
  });

  it('keeps the truth oracle in step with the window', () => {
    expect(fiftyNine.truth(WINDOW_FIRST)).toEqual([]);
    const next = addDays(WINDOW_FIRST, 1);
    expect(fiftyNine.truth(next)).toEqual(sixty.truth(next));
  });
});
