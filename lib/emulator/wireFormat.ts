import type { Rng } from './prng.ts';

/** `2025-02-06T16:16:44.571+00:00`: milliseconds and a numeric offset, as the upstream writes it. */
export function formatTimestamp(ms: number): string {
  const dayIndex = Math.floor(ms / DAY_MS);
  let date = dateCache.get(dayIndex);
  if (date === undefined) {
    date = new Date(dayIndex * DAY_MS).toISOString().slice(0, 10);
    if (dateCache.size > 10_000) dateCache.clear();
    dateCache.set(dayIndex, date);
  }
  const t = ms - dayIndex * DAY_MS;
  return `${date}T${pad2(Math.floor(t / 3_600_000))}:${pad2(Math.floor(t / 60_000) % 60)}:${pad2(Math.floor(t / 1000) % 60)}.${pad3(t % 1000)}+00:00`;
}

const DAY_MS = 86_400_000;
/** Formatting dominates dataset generation; the date part repeats, so it is cached per day. */
const dateCache = new Map<number, string>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

export function ipv4(rng: Rng): string {
  return [rng.int(1, 223), rng.int(0, 255), rng.int(0, 255), rng.int(1, 254)].join('.');
}

/** Either a full eight-group address or a compressed one (`2001:db8::1a2b`). */
export function ipv6(rng: Rng): string {
  const group = () => rng.int(0, 0xffff).toString(16);
  if (rng.chance(0.5)) return `2001:db8::${group()}`;
  return ['2a02', ...Array.from({ length: 7 }, group)].join(':');
}
