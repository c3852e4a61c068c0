import type { Rng } from './prng.ts';

/** `2025-02-06T16:16:44.571+00:00`, as the upstream writes it: the archive's own definition of that spelling. */
export { formatWireInstant as formatTimestamp } from '../records/wireInstant.ts';

export function ipv4(rng: Rng): string {
  return [rng.int(1, 223), rng.int(0, 255), rng.int(0, 255), rng.int(1, 254)].join('.');
}

/** Either a full eight-group address or a compressed one (`2001:db8::1a2b`). */
export function ipv6(rng: Rng): string {
  const group = () => rng.int(0, 0xffff).toString(16);
  if (rng.chance(0.5)) return `2001:db8::${group()}`;
  return ['2a02', ...Array.from({ length: 7 }, group)].join(':');
}
