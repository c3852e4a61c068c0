import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { sessionsStartingOn } from '../../lib/archive/emulator/dataset.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import { POISON_KINDS, poisonFor, resolvePoison } from '../../lib/archive/emulator/poison.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { addDays, dayRange } from '../../lib/foundation/clock/day.ts';
import { daysByKind, getJson, historyPath, key, NOW, TODAY } from './emulatorKit.ts';

type Page = { totalElements: number; content: unknown[] };
const { normal, quiet } = daysByKind();
const DAY = normal.find((d) => d < addDays(TODAY, -25))!;

async function wholeDay(url: string, day: string): Promise<unknown[]> {
  return (await getJson<Page>(url, historyPath(day, day, { size: 2000 }))).content;
}

describe('poisonFor', () => {
  const sessions = sessionsStartingOn(1, DAY);

  it('is deterministic in (seed, day) and differs across seeds', () => {
    const a = poisonFor(1, DAY, sessions, { count: 9 });
    expect(poisonFor(1, DAY, sessions, { count: 9 })).toEqual(a);
    expect(poisonFor(2, DAY, sessions, { count: 9 })).not.toEqual(a);
  });

  it('rotates through every kind, and only the token-bearing one is a valid record', () => {
    const items = poisonFor(1, DAY, sessions, { count: POISON_KINDS.length });
    expect(new Set(items.map((i) => i.kind))).toEqual(new Set(POISON_KINDS));
    for (const i of items) expect(i.valid).toBe(i.kind === 'token-in-unknown-field');
  });

  it.each([
    ['port-overflow', (r: Record<string, unknown>) => r.port === 3_000_000_000],
    ['negative-year', (r: Record<string, unknown>) => r.start_time === '-000001-06-01T00:00:00Z'],
    ['slash-date', (r: Record<string, unknown>) => r.start_time === '2026/11/20 10:00:00'],
    ['impossible-date', (r: Record<string, unknown>) => r.start_time === '2026-02-30T00:00:00Z'],
    ['bare-number-date', (r: Record<string, unknown>) => r.start_time === '12'],
    [
      'end-before-start',
      (r: Record<string, unknown>) => Date.parse(r.end_time as string) < Date.parse(r.start_time as string),
    ],
    [
      'domains-not-strings',
      (r: Record<string, unknown>) =>
        !Array.isArray(r.domains) || r.domains.some((d: unknown) => typeof d !== 'string'),
    ],
    [
      'token-in-unknown-field',
      (r: Record<string, unknown>) => JSON.stringify(r.details).includes(r.auth_token as string),
    ],
  ] as const)('spoils a record as %s', (kind, check) => {
    const [item] = poisonFor(1, DAY, sessions, { count: 1, kinds: [kind] });
    expect(item?.kind).toBe(kind);
    expect(check(item?.item as Record<string, unknown>)).toBe(true);
  });

  it('makes non-object items', () => {
    const items = poisonFor(1, DAY, sessions, { count: 4, kinds: ['non-object'] });
    for (const i of items)
      expect(typeof i.item === 'object' && i.item !== null && !Array.isArray(i.item)).toBe(false);
  });

  it('sizes a rate by the day volume, at least one item', () => {
    expect(poisonFor(1, DAY, sessions, { rate: 0.1 })).toHaveLength(
      Math.max(1, Math.round(sessions.length / 10)),
    );
    expect(poisonFor(1, DAY, [], { rate: 0.1 })).toHaveLength(1);
    expect(poisonFor(1, DAY, sessions, { rate: 0 })).toHaveLength(0);
  });

  it.each([{ count: -1 }, { rate: 11 }, { kinds: ['nope'] }, { extra: 1 }])(
    'rejects %j as CONFIG_INVALID',
    (bad) => {
      expect(() => resolvePoison(bad as never)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    },
  );
});

describe('startEmulator({ poisonRecords })', () => {
  let emu: EmulatorHandle;
  beforeAll(async () => {
    emu = await startEmulator({ seed: 1, clock: fixedClock(NOW), poisonRecords: { count: 9 } });
  });
  afterAll(() => emu.close());

  it('serves the truth plus the same poison items on every request, in any order', async () => {
    const truth = emu.truth(DAY).map(key);
    const poison = emu.poison(DAY).map((p) => key(p.item));
    expect(poison).toHaveLength(9);
    const first = (await wholeDay(emu.url, DAY)).map(key).sort();
    const second = (await wholeDay(emu.url, DAY)).map(key).sort();
    expect(first).toEqual([...truth, ...poison].sort());
    expect(second).toEqual(first);
  });

  it('counts poison in totalElements', async () => {
    const p = await getJson<Page>(emu.url, historyPath(DAY, DAY, { size: 1 }));
    expect(p.totalElements).toBe(emu.truth(DAY).length + 9);
  });

  it('injects poison into quiet days too, and the invalid items fail the record schema', async () => {
    const day = quiet.find((d) => d < TODAY)!;
    const rows = await wholeDay(emu.url, day);
    expect(rows).toHaveLength(9);
    const valid = rows.filter(
      (r) =>
        historyRecordSchema.safeParse(r).success && !`${(r as { port?: unknown }).port}`.startsWith('3000'),
    );
    expect(valid.length).toBeLessThan(rows.length);
  });

  it('keeps each day its own poison (every item but a bare null is distinct)', () => {
    const days = dayRange(addDays(DAY, 1), addDays(DAY, 3));
    const texts = days.flatMap((d) =>
      emu
        .poison(d)
        .filter((p) => p.item !== null)
        .map((p) => key(p.item)),
    );
    expect(new Set(texts).size).toBe(texts.length);
  });
});
