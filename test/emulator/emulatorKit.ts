import { request } from 'undici';
import { expect } from 'vitest';
import { EMULATOR_PAID_KEY } from '../../devkit/startEmulator.ts';
import { DEFAULT_DATASET, dayProfile } from '../../lib/archive/emulator/dataset.ts';
import { dayRange } from '../../lib/foundation/clock/day.ts';

/** The instant most emulator tests freeze the clock at; its window is 2025-01-01..2025-03-01. */
export const NOW = '2025-03-01T12:00:00.000Z';
export const WINDOW_FIRST = '2025-01-01';
export const TODAY = '2025-03-01';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** GET over real HTTP; `key: null` sends no Authorization header. */
export async function get(
  baseUrl: string,
  path: string,
  key: string | null = EMULATOR_PAID_KEY,
): Promise<RawResponse> {
  const res = await request(`${baseUrl}${path}`, {
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

export async function getJson<T = unknown>(baseUrl: string, path: string): Promise<T> {
  const res = await get(baseUrl, path);
  if (res.status !== 200) throw new Error(`GET ${path} -> ${res.status}: ${res.text.slice(0, 200)}`);
  return JSON.parse(res.text) as T;
}

export function historyPath(from: string, to: string, query: { page?: number; size?: number } = {}): string {
  const params = new URLSearchParams();
  if (query.page !== undefined) params.set('page', String(query.page));
  if (query.size !== undefined) params.set('size', String(query.size));
  const qs = params.toString();
  return `/backend/api/v1/session/history/${from}/${to}${qs ? `?${qs}` : ''}`;
}

/** Days of the test window (seed 1) by kind, so tests can pick a heavy, a quiet or a normal day. */
export function daysByKind(seed: string | number = 1, from = WINDOW_FIRST, to = TODAY) {
  const days = dayRange(from, to).map((day) => ({ day, ...dayProfile(seed, day, DEFAULT_DATASET) }));
  return {
    heavy: days.filter((d) => d.kind === 'heavy').map((d) => d.day),
    quiet: days.filter((d) => d.kind === 'quiet').map((d) => d.day),
    normal: days.filter((d) => d.kind === 'normal').map((d) => d.day),
  };
}

/** Canonical text of a record, for multiset comparisons. */
export function key(record: unknown): string {
  return JSON.stringify(record);
}

/** Where a Page stands: its counts, its page/size, and whether it is the first, last or an empty one. */
export interface PagePosition {
  total: number;
  pages: number;
  page: number;
  size: number;
  /** numberOfElements */
  n: number;
  first: boolean;
  last: boolean;
  empty: boolean;
}

/** Asserts a Page's arithmetic: totals, number/size, flags and the pageable position (offset = page * size). */
export function expectPageAt(p: Record<string, unknown>, at: PagePosition): void {
  expect(p).toMatchObject({
    totalElements: at.total,
    totalPages: at.pages,
    size: at.size,
    number: at.page,
    numberOfElements: at.n,
  });
  expect({ first: p.first, last: p.last, empty: p.empty }).toEqual({
    first: at.first,
    last: at.last,
    empty: at.empty,
  });
  expect(p.pageable).toMatchObject({ pageNumber: at.page, pageSize: at.size, offset: at.page * at.size });
}
