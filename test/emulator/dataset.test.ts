import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DATASET,
  dayProfile,
  type EmulatedSession,
  isLongDay,
  sessionsStartingOn,
} from '../../lib/archive/emulator/dataset.ts';
import { historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';

const DAYS = dayRange('2025-01-01', '2025-03-01');
const byDay = new Map(DAYS.map((day) => [day, sessionsStartingOn(1, day)]));
const all = [...byDay.values()].flat();
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

describe('sessionsStartingOn', () => {
  it('is deterministic in the seed', () => {
    expect(sessionsStartingOn(1, '2025-02-10')).toEqual(sessionsStartingOn(1, '2025-02-10'));
    expect(sessionsStartingOn(2, '2025-02-10')).not.toEqual(sessionsStartingOn(1, '2025-02-10'));
  });

  it('generates a 60-day window of thousands of sessions (its speed is measured by npm run bench: emulator-dataset)', () => {
    for (const seed of [98, 99]) {
      const n = dayRange('2024-05-01', '2024-06-29').reduce(
        (sum, day) => sum + sessionsStartingOn(seed, day).length,
        0,
      );
      expect(n).toBeGreaterThan(5_000);
    }
  });

  it('only returns sessions that start on the given UTC day', () => {
    for (const day of DAYS.slice(0, 10)) {
      for (const s of sessionsStartingOn(1, day)) expect(toDay(new Date(s.startMs))).toBe(day);
    }
  });

  it('never repeats a record within a day', () => {
    for (const day of DAYS) {
      const texts = byDay.get(day)!.map((s) => JSON.stringify(s.history));
      expect(new Set(texts).size).toBe(texts.length);
    }
  });

  it('writes every record in the wire format of the seed', () => {
    const problems: string[] = [];
    const check = (ok: boolean, what: string, s: EmulatedSession) => {
      if (!ok) problems.push(`${s.id}: ${what}`);
    };
    for (const s of all) {
      const h = s.history;
      check(historyRecordSchema.safeParse(h).success, 'schema', s);
      check(TIMESTAMP.test(h.start_time) && TIMESTAMP.test(h.end_time), 'timestamp format', s);
      check(Date.parse(h.end_time) > Date.parse(h.start_time), 'ends after it starts', s);
      check(/^\[[0-9a-f.:]+\]:\d{1,5}$/.test(h.client_ip), 'client_ip', s);
      check((h.port === null) === (h.mode === 'http'), 'port null exactly for http', s);
      check(
        h.virtual_token_value === null || /^[A-Za-z]+-\d+$/.test(h.virtual_token_value),
        'virtual token',
        s,
      );
      check(s.active.virtualToken.endsWith(`-${s.active.port}`), 'active virtualToken', s);
      check(s.active.creationTimestamp === h.start_time, 'active creationTimestamp', s);
    }
    expect(problems.slice(0, 5)).toEqual([]);
  });

  it('covers every mode, both IP families, nulls, empty domains and non-ASCII e-mail', () => {
    const records = all.map((s) => s.history);
    expect(new Set(records.map((r) => r.mode))).toEqual(new Set(['http', 'tcp', 'tls', 'tlstcp']));
    expect(new Set(records.map((r) => r.mode_udp))).toEqual(new Set(['', 'udp']));
    expect(records.some((r) => r.client_ip.includes('.'))).toBe(true);
    expect(records.some((r) => /^\[[0-9a-f:]+\]/.test(r.client_ip))).toBe(true);
    expect(records.some((r) => r.token_value === null)).toBe(true);
    expect(records.some((r) => r.virtual_token_value !== null)).toBe(true);
    expect(records.some((r) => r.domains.length === 0)).toBe(true);
    expect(records.some((r) => r.domains.length === 2)).toBe(true);
    expect(records.some((r) => r.user_email === 'jürgen@exämple.de')).toBe(true);
    expect(new Set(records.map((r) => r.user_email)).size).toBeGreaterThan(10);
  });

  it('spreads session lengths from a minute to weeks', () => {
    const lengths = all.map((s) => s.endMs - s.startMs);
    expect(Math.min(...lengths)).toBeLessThan(2 * 60_000);
    expect(Math.max(...lengths)).toBeGreaterThan(14 * 86_400_000);
    const overDay = lengths.filter((ms) => ms > 86_400_000).length / lengths.length;
    expect(overDay).toBeGreaterThan(0.02);
    expect(overDay).toBeLessThan(0.3);
  });

  it('holds some rows back by an ingestion lag', () => {
    const late = all.filter((s) => s.lagMs > 0).length / all.length;
    expect(late).toBeGreaterThan(0.05);
    expect(late).toBeLessThan(0.2);
  });
});

describe('dayProfile', () => {
  const year = dayRange('2024-01-01', '2024-12-31').map((day) => ({
    day,
    ...dayProfile(1, day, DEFAULT_DATASET),
  }));

  it('has quiet days, normal days of tens to hundreds, and a heavy day about every two weeks', () => {
    const heavy = year.filter((d) => d.kind === 'heavy');
    expect(heavy.length).toBeGreaterThanOrEqual(24);
    expect(heavy.length).toBeLessThanOrEqual(28);
    for (const d of heavy) expect(d.count).toBeGreaterThanOrEqual(2000);
    expect(year.filter((d) => d.kind === 'quiet' && d.count === 0).length).toBeGreaterThan(10);
    const normal = year.filter((d) => d.kind === 'normal').map((d) => d.count);
    expect(Math.min(...normal)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...normal)).toBeLessThanOrEqual(400);
    expect(normal.filter((n) => n >= 100).length).toBeGreaterThan(50);
  });

  it('matches the number of generated sessions', () => {
    const day = addDays('2025-02-01', 3);
    expect(sessionsStartingOn(1, day)).toHaveLength(dayProfile(1, day, DEFAULT_DATASET).count);
  });
});

describe('DatasetOptions.scale', () => {
  const scaled = { ...DEFAULT_DATASET, scale: 20 };

  it('multiplies every day by N, keeping the unscaled sessions first', () => {
    for (const day of DAYS.slice(0, 20)) {
      const base = sessionsStartingOn(1, day);
      const big = sessionsStartingOn(1, day, scaled);
      expect(big).toHaveLength(base.length * 20);
      expect(big.slice(0, base.length).map((s) => s.history)).toEqual(base.map((s) => s.history));
    }
  });

  it('is deterministic', () => {
    const day = DAYS[30]!;
    const a = sessionsStartingOn(1, day, scaled).map((s) => s.history);
    expect(sessionsStartingOn(1, day, scaled).map((s) => s.history)).toEqual(a);
  });

  it('generates 60 days at scale 20: hundreds of thousands of sessions (timed by the bench, not here)', () => {
    let n = 0;
    for (const day of dayRange('2024-05-01', '2024-06-29')) n += sessionsStartingOn(5, day, scaled).length;
    expect(n).toBeGreaterThan(300_000);
  });
});

describe('long-lived tunnels', () => {
  it('start on the first busy day of every 5-day block and outlive the window', () => {
    const long = all.filter((s) => s.endMs - s.startMs > 60 * 86_400_000);
    expect(long.length).toBeGreaterThanOrEqual(10);
    for (const s of long) {
      expect(isLongDay(1, toDay(new Date(s.startMs)), DEFAULT_DATASET)).toBe(true);
      expect(s.endMs - s.startMs).toBeLessThanOrEqual(DEFAULT_DATASET.longMaxMs);
    }
  });

  it('can be turned off', () => {
    const none = DAYS.flatMap((d) => sessionsStartingOn(1, d, { ...DEFAULT_DATASET, longEveryDays: 0 }));
    expect(none.every((s) => s.endMs - s.startMs <= DEFAULT_DATASET.maxSessionMs + 1000)).toBe(true);
  });
});
