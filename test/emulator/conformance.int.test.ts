import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_FREE_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { fixedClock } from '../../lib/archive/emulator/emulatorClock.ts';
import {
  activeListSchema,
  historyRecordSchema,
  pageEnvelopeSchema,
} from '../../lib/archive/records/schemas.ts';
import { addDays } from '../../lib/foundation/clock/day.ts';
import activeFixture from '../fixtures/active-documented.json' with { type: 'json' };
import historyFixture from '../fixtures/history-documented.json' with { type: 'json' };
import {
  daysByKind,
  expectPageAt,
  get,
  getJson,
  historyPath,
  NOW,
  TODAY,
  WINDOW_FIRST,
} from './emulatorKit.ts';

type Json = Record<string, unknown>;
const ACTIVE = '/backend/api/v1/session/active';
const { heavy, quiet, normal } = daysByKind();
const HEAVY = heavy.find((d) => d < addDays(TODAY, -21))!;
const NORMAL = normal.find((d) => d > '2025-02-01')!;

/** The JSON type of each field, `null` kept apart, so shapes can be compared field by field. */
const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await startEmulator({ seed: 1, clock: fixedClock(NOW) });
});
afterAll(() => emu.close());

describe('GET /backend/api/v1/session/history', () => {
  it('has exactly the documented Page shape, key by key and in the same order', async () => {
    const page = await getJson<Json>(emu.url, historyPath(NORMAL, NORMAL, { page: 0, size: 10 }));
    expect(Object.keys(page)).toEqual(Object.keys(historyFixture));
    expect(Object.keys(page.pageable as Json)).toEqual(Object.keys(historyFixture.pageable));
    expect(page.sort).toEqual(historyFixture.sort);
    expect((page.pageable as Json).sort).toEqual(historyFixture.pageable.sort);
    for (const k of Object.keys(historyFixture) as (keyof typeof historyFixture)[]) {
      expect(typeOf(page[k]), k).toBe(typeOf(historyFixture[k]));
    }
    expect(pageEnvelopeSchema.safeParse(page).success).toBe(true);
  });

  it('sends records with exactly the documented fields and nullable types', async () => {
    const page = await getJson<{ content: Json[] }>(emu.url, historyPath(NORMAL, NORMAL, { size: 2000 }));
    const fixture = historyFixture.content[0] as Json;
    const nullable = new Set(['token_value', 'virtual_token_value', 'port']);
    expect(page.content.length).toBeGreaterThan(10);
    for (const record of page.content) {
      expect(Object.keys(record)).toEqual(Object.keys(fixture));
      expect(historyRecordSchema.safeParse(record).success).toBe(true);
      for (const [k, v] of Object.entries(fixture)) {
        if (record[k] === null) expect(nullable.has(k), k).toBe(true);
        else if (v !== null) expect(typeOf(record[k]), k).toBe(typeOf(v));
      }
    }
    const ports = page.content.map((r) => typeOf(r.port));
    expect(new Set(ports)).toEqual(new Set(['null', 'number']));
  });

  it('returns Content-Type application/json', async () => {
    const res = await get(emu.url, historyPath(NORMAL, NORMAL));
    expect(res.headers['content-type']).toBe('application/json');
  });

  it.each([1, 7, 20, 150])('keeps the Page arithmetic consistent for size %i on every page', async (size) => {
    const total = emu.truth(NORMAL).length;
    const pages = Math.ceil(total / size);
    for (const page of [0, 1, pages - 1, pages, pages + 3].filter((p) => p >= 0)) {
      const p = await getJson<Json>(emu.url, historyPath(NORMAL, NORMAL, { page, size }));
      const n = Math.max(0, Math.min(size, total - page * size));
      expectPageAt(p, {
        total,
        pages,
        page,
        size,
        n,
        first: page === 0,
        last: page >= pages - 1,
        empty: n === 0,
      });
      expect(p.content).toHaveLength(n);
    }
  });

  it('defaults to size 20 and page 0 when both are omitted', async () => {
    const p = await getJson<Json>(emu.url, historyPath(HEAVY, HEAVY));
    expect(p).toMatchObject({ size: 20, number: 0, numberOfElements: 20, first: true });
    expect(p.pageable).toMatchObject({ pageSize: 20, pageNumber: 0, offset: 0 });
  });

  it('caps size at 2000 and says so in size and pageable.pageSize', async () => {
    const p = await getJson<Json>(emu.url, historyPath(HEAVY, HEAVY, { size: 5000 }));
    const total = emu.truth(HEAVY).length;
    expect(total).toBeGreaterThan(2000);
    expect(p).toMatchObject({ size: 2000, numberOfElements: 2000, totalPages: Math.ceil(total / 2000) });
    expect((p.pageable as Json).pageSize).toBe(2000);
  });

  it('treats both path dates as inclusive bounds on the start day', async () => {
    const [a, b, c] = [NORMAL, addDays(NORMAL, 1), addDays(NORMAL, 2)];
    const range = await getJson<Json>(emu.url, historyPath(a, c, { size: 1 }));
    const sum = [a, b, c].reduce((n, d) => n + emu.truth(d).length, 0);
    expect(range.totalElements).toBe(sum);
    const one = await getJson<Json>(emu.url, historyPath(b, b, { size: 1 }));
    expect(one.totalElements).toBe(emu.truth(b).length);
    expect(emu.truth(b).every((r) => r.start_time.startsWith(b))).toBe(true);
  });

  it('returns an empty page for a quiet day and for a day in the future', async () => {
    for (const day of [quiet[0]!, addDays(TODAY, 5)]) {
      const p = await getJson<Json>(emu.url, historyPath(day, day));
      expect(p).toMatchObject({
        totalElements: 0,
        totalPages: 0,
        numberOfElements: 0,
        empty: true,
        first: true,
        last: true,
      });
    }
  });

  it.each([
    ['a day before the window', addDays(WINDOW_FIRST, -1), TODAY],
    ['a malformed date', '2025-2-1', TODAY],
    ['an impossible date', '2025-02-30', TODAY],
    ['from after to', TODAY, addDays(TODAY, -1)],
  ])('answers 400 with a JSON body for %s', async (_, from, to) => {
    const res = await get(emu.url, historyPath(from, to));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ status: 400, error: 'Bad Request' });
  });

  it('accepts the first day of the 60-day window', async () => {
    expect((await get(emu.url, historyPath(WINDOW_FIRST, WINDOW_FIRST))).status).toBe(200);
  });
});

describe('GET /backend/api/v1/session/active', () => {
  it('lists the running sessions with exactly the documented fields', async () => {
    const list = await getJson<Json[]>(emu.url, ACTIVE);
    const fixture = activeFixture[0] as Json;
    expect(list.length).toBeGreaterThan(0);
    expect(activeListSchema.safeParse(list).success).toBe(true);
    for (const s of list) {
      expect(Object.keys(s)).toEqual(Object.keys(fixture));
      for (const [k, v] of Object.entries(fixture))
        if (v !== null && s[k] !== null) expect(typeOf(s[k]), k).toBe(typeOf(v));
      expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(s.virtualToken).toMatch(new RegExp(`-${s.port}$`));
      expect(Date.parse(s.creationTimestamp as string)).toBeLessThanOrEqual(Date.parse(NOW));
    }
    expect(list).toEqual(emu.active());
  });

  it('never lists a session that the history already shows', async () => {
    const active = new Set(emu.active().map((s) => s.creationTimestamp));
    const shown = emu.truth(TODAY).map((r) => r.start_time);
    expect(shown.filter((t) => active.has(t))).toEqual([]);
  });
});

describe('authentication', () => {
  it.each([
    ['the paid key', 'emulator-paid-key', 200],
    ['the free key', EMULATOR_FREE_KEY, 403],
    ['an unknown key', 'nope', 401],
    ['no key', null, 401],
  ])('answers %s with %i on both endpoints', async (_, key, status) => {
    for (const path of [ACTIVE, historyPath(TODAY, TODAY)]) {
      expect((await get(emu.url, path, key)).status).toBe(status);
    }
  });

  it('varies the error bodies: empty 401 with a challenge, JSON 403, JSON 404', async () => {
    const r401 = await get(emu.url, ACTIVE, 'nope');
    expect([r401.text, r401.headers['www-authenticate']]).toEqual(['', 'Bearer']);
    const r403 = await get(emu.url, ACTIVE, EMULATOR_FREE_KEY);
    expect(JSON.parse(r403.text)).toMatchObject({ error: 'forbidden' });
    const r404 = await get(emu.url, '/backend/api/v1/session/nothing');
    expect(r404.status).toBe(404);
    expect(JSON.parse(r404.text)).toMatchObject({ status: 404 });
  });
});

describe('startEmulator', () => {
  it.each([{ windowDays: 0 }, { maxPageSize: 0 }, { defaultPageSize: 1.5 }])(
    'rejects %j as CONFIG_INVALID',
    async (bad) => {
      await expect(startEmulator(bad)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    },
  );

  it('answers a malformed escape in a date segment with 400, not 500', async () => {
    expect((await get(emu.url, historyPath('%E0%A4%A', TODAY))).status).toBe(400);
  });
});
