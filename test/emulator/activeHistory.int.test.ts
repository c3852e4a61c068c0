import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { LIVE_SHAPES } from '../../lib/archive/emulator/liveShape.ts';
import { windowStart } from '../../lib/archive/emulator/routes.ts';
import { liveJoinToken, liveMatchesHistory } from '../../lib/archive/records/liveJoinToken.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import activeFixture from '../fixtures/active-documented.json' with { type: 'json' };
import { get, getJson, historyPath, NOW, TODAY, WINDOW_FIRST } from './emulatorKit.ts';

const DAY_MS = 86_400_000;
const HOUR = 3_600_000;
type Active = ReturnType<EmulatorHandle['active']>[number];

/**
 * The join the naming view makes, on raw values: same instant, and `liveMatchesHistory` (history's token
 * is the live session's join token: its token, or its virtual token less `-<port>`; or both name the
 * same virtual token).
 */
const matches = (
  a: Active,
  r: { start_time: string; token_value: string | null; virtual_token_value: string | null },
) =>
  a.creationTimestamp === r.start_time &&
  liveMatchesHistory(
    {
      join_token: liveJoinToken(typeof a.token === 'string' ? a.token : null, a.virtualToken, a.port),
      virtual_token: a.virtualToken,
    },
    { token: r.token_value, virtual_token: r.virtual_token_value },
  );

describe.each(LIVE_SHAPES)('the active list in the %s shape against the history', (liveShape) => {
  const clock = fixedClock(NOW);
  let emu: EmulatorHandle;
  beforeAll(async () => {
    emu = await startEmulator({ seed: 1, clock, liveShape });
  });
  afterAll(() => emu.close());

  it('names the token as its shape says: documented as the documented example, in virtualToken alone', () => {
    const example = activeFixture[0]!;
    // The documented example: no token, the token and the port in `virtualToken`.
    expect(example.token).toBeNull();
    expect(example.virtualToken.endsWith(`-${example.port}`)).toBe(true);
    const list = emu.active();
    const plain = list.filter((a) => a.virtualTokenName === null);
    expect(plain.length).toBeGreaterThan(20);
    for (const a of list) expect(a.virtualToken.endsWith(`-${a.port}`), a.virtualToken).toBe(true);
    const filled = plain.filter((a) => a.token !== null);
    if (liveShape === 'documented') expect(filled).toEqual([]);
    else expect(filled.length).toBeGreaterThan(plain.length / 2);
  });

  it('names every session: id UUID, userId, tokenId, subdomain and a token or virtual-token name field', () => {
    const list = emu.active();
    expect(list.length).toBeGreaterThan(20);
    for (const a of list) {
      expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number.isInteger(a.userId) && Number.isInteger(a.tokenId)).toBe(true);
      expect(a.subdomain).toMatch(/\.a\.pinggy\.link$/);
      expect('tokenName' in a && 'virtualTokenName' in a && 'customdomain' in a).toBe(true);
    }
    expect(list.some((a) => a.tokenName !== null)).toBe(true);
    expect(list.some((a) => a.virtualTokenName !== null)).toBe(true);
    expect(list.some((a) => a.customdomain !== null)).toBe(true);
    expect(new Set(list.map((a) => a.id)).size).toBe(list.length);
  });

  it('shows each ended session in history under its start day, joinable to the same instant and token', async () => {
    const before = emu.active();
    // Three weeks on, every ordinary session seen now has ended and left its ingestion lag behind.
    const later = new Date(Date.parse(NOW) + 23 * DAY_MS);
    const floor = windowStart(later, 60);
    const stillRunning = new Set(emu.active(later).map((a) => a.id));
    const ended = before.filter((a) => !stillRunning.has(a.id));
    expect(ended.length).toBeGreaterThan(20);
    const truth = new Map<string, ReturnType<EmulatorHandle['truth']>>();
    let joined = 0;
    let inWindow = 0;
    for (const a of ended) {
      const day = a.creationTimestamp.slice(0, 10);
      if (day < floor) continue;
      inWindow++;
      if (!truth.has(day)) truth.set(day, emu.truth(day, later));
      const rows = truth.get(day)!.filter((r) => matches(a, r));
      expect(rows.length, a.creationTimestamp).toBeLessThanOrEqual(1);
      joined += rows.length;
    }
    expect(inWindow).toBeGreaterThan(20);
    expect(joined / inWindow, `${joined}/${inWindow}`).toBeGreaterThanOrEqual(0.95);
  });

  it('never lists a session after it ended, and lists it until then', () => {
    const list = emu.active();
    const soon = new Date(Date.parse(NOW) + HOUR);
    for (const a of emu.active(soon)) {
      expect(Date.parse(a.creationTimestamp)).toBeLessThanOrEqual(soon.getTime());
    }
    const stillThere = new Set(emu.active(soon).map((a) => a.id));
    const gone = list.filter((a) => !stillThere.has(a.id));
    // What ended within the hour is in history by then (unless held back by ingestion lag).
    const shown = gone.filter((a) =>
      emu.truth(a.creationTimestamp.slice(0, 10), soon).some((r) => matches(a, r)),
    );
    expect(gone.length === 0 || shown.length > 0).toBe(true);
  });

  it('includes a tunnel open for more than 60 days whose start day has left the window and never appears in history', async () => {
    const now = Date.parse(NOW);
    const long = emu.active().filter((a) => now - Date.parse(a.creationTimestamp) > 60 * DAY_MS);
    expect(long.length).toBeGreaterThanOrEqual(1);
    for (const a of long) {
      const day = toDay(new Date(a.creationTimestamp));
      expect(day < WINDOW_FIRST).toBe(true);
      expect((await get(emu.url, historyPath(day, day))).status).toBe(400);
    }
  });

  it('has a tunnel open for more than 60 days at any moment of a year', () => {
    for (const day of dayRange('2024-01-01', '2024-12-31').filter((_, i) => i % 7 === 0)) {
      const at = Date.parse(`${day}T06:00:00Z`);
      const long = emu.active(new Date(at)).filter((a) => at - Date.parse(a.creationTimestamp) > 60 * DAY_MS);
      expect(long.length, day).toBeGreaterThanOrEqual(1);
    }
  });

  it('serves the same list over HTTP', async () => {
    expect(await getJson(emu.url, '/backend/api/v1/session/active')).toEqual(emu.active());
    expect(TODAY).toBe(addDays(WINDOW_FIRST, 59));
  });
});
