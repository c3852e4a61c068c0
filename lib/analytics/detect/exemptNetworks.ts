import { ArchiverError } from '../../foundation/index.ts';
import { canonicalAddress } from './canonicalAddress.ts';

/**
 * A CIDR network as prefixes of the canonical address text (IPv4 on octets, IPv6 on hex digits; at
 * most 128 of them, as a length between two octets or digits leaves at most 7 or 3 bits), so both
 * engines test it with `LIKE 'prefix%'` (a whole address with `=`): `192.0.2.0/24` → `192.0.2.`, `203.0.113.8/29` → the 8
 * addresses, `2001:db8::/32` → `2001:0db8:`. A malformed network is `CONFIG_INVALID`, naming it.
 */
export function cidrPrefixes(cidr: string): string[] {
  const m = /^([^/\s]+)\/(\d{1,3})$/.exec(cidr.trim());
  const bad = (why: string) =>
    new ArchiverError('CONFIG_INVALID', `exempt_networks: '${cidr}' is not a network (${why})`);
  if (!m) throw bad('write it as address/length, e.g. 192.0.2.0/24 or 2001:db8::/48');
  const canon = canonicalAddress(m[1] ?? '');
  const bits = Number(m[2]);
  if (!canon.includes(':')) {
    const octets = canon.split('.').map(Number);
    if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255))
      throw bad('not an IPv4 address');
    if (bits > 32) throw bad('IPv4 lengths are 0 to 32');
    const whole = Math.ceil(bits / 8);
    const count = 2 ** (whole * 8 - bits);
    const base = octets.slice(0, whole);
    const last = whole - 1;
    return Array.from({ length: count }, (_, i) => {
      const o = [...base];
      if (last >= 0) o[last] = ((o[last] ?? 0) & (0xff << (whole * 8 - bits)) & 0xff) + i;
      return whole === 4 ? o.join('.') : `${o.join('.')}${whole === 0 ? '' : '.'}`;
    });
  }
  if (!/^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/.test(canon)) throw bad('not an IPv6 address');
  if (bits > 128) throw bad('IPv6 lengths are 0 to 128');
  const digits = canon.replace(/:/g, '');
  const whole = Math.ceil(bits / 4);
  const count = 2 ** (whole * 4 - bits);
  const head = digits.slice(0, whole);
  const lastDigit = whole > 0 ? Number.parseInt(head.slice(-1), 16) & (0xf << (whole * 4 - bits)) & 0xf : 0;
  return Array.from({ length: count }, (_, i) => {
    const d = whole > 0 ? `${head.slice(0, -1)}${(lastDigit + i).toString(16)}` : '';
    // Back into groups of four: `2001:0db8:` for 8 digits.
    return (
      (d.match(/.{1,4}/g) ?? []).join(':') + (d.length % 4 === 0 && d.length < 32 && d.length > 0 ? ':' : '')
    );
  });
}
