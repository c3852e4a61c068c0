import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  canonicalAddress,
  canonicalAddressSql,
  clientNetworkOf,
} from '../../lib/analytics/detect/canonicalAddress.ts';
import { duckdbRuleEngine } from '../../lib/analytics/detect/duckdbRuleEngine.ts';
import { cidrPrefixes } from '../../lib/analytics/detect/exemptNetworks.ts';
import { sqlString } from '../../lib/analytics/query/sqlString.ts';

const engine = await duckdbRuleEngine([]);
afterAll(() => engine.close());

/** The SQL's canonical form and network of each address, in DuckDB. */
async function inSql(addresses: readonly string[]): Promise<{ canon: string; network: string }[]> {
  const values = addresses.map((a, i) => `(${i}, ${sqlString(a)})`).join(', ');
  const rows = await engine.query(
    `SELECT i, client_canon, client_network FROM (${canonicalAddressSql(`(SELECT * FROM (VALUES ${values}) v(i, client_address))`)}) t ORDER BY i`,
  );
  return rows.map((r) => ({ canon: String(r.client_canon), network: String(r.client_network) }));
}

/** An IPv6 address written the way RFC 5952 would, or with its zeros spelled out, or in capitals. */
const ipv6 = fc
  .tuple(
    fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([groups, compress, upper]) => {
    const hex = groups.map((g) => g.toString(16));
    let text = hex.join(':');
    if (compress) {
      // The longest run of zero groups becomes `::`.
      let best = [-1, 0];
      for (let i = 0; i < 8; i++) {
        let j = i;
        while (j < 8 && groups[j] === 0) j++;
        if (j - i > (best[1] ?? 0)) best = [i, j - i];
      }
      const [at = -1, len = 0] = best;
      if (len >= 2) text = `${hex.slice(0, at).join(':')}::${hex.slice(at + len).join(':')}`;
    }
    const expanded = groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
    return { text: upper ? text.toUpperCase() : text, expanded };
  });

describe('canonicalAddress', () => {
  it('spells one address one way, and /48s come from the canonical form', async () => {
    const cases: [string, string, string][] = [
      ['2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:0db8:0000::/48'],
      ['2001:db8:0:1::1', '2001:0db8:0000:0001:0000:0000:0000:0001', '2001:0db8:0000::/48'],
      ['2001:DB8:AA::1', '2001:0db8:00aa:0000:0000:0000:0000:0001', '2001:0db8:00aa::/48'],
      ['::1', '0000:0000:0000:0000:0000:0000:0000:0001', '0000:0000:0000::/48'],
      ['fe80::1%eth0', 'fe80:0000:0000:0000:0000:0000:0000:0001', 'fe80:0000:0000::/48'],
      ['::ffff:192.0.2.1', '192.0.2.1', '192.0.2.0/24'],
      ['::FFFF:198.51.100.7', '198.51.100.7', '198.51.100.0/24'],
      ['0:0:0:0:0:ffff:203.0.113.9', '203.0.113.9', '203.0.113.0/24'],
      ['::ffff:c000:201', '192.0.2.1', '192.0.2.0/24'],
      ['198.51.100.7', '198.51.100.7', '198.51.100.0/24'],
    ];
    const sql = await inSql(cases.map(([a]) => a));
    cases.forEach(([address, canon, network], i) => {
      expect(canonicalAddress(address), address).toBe(canon);
      expect(clientNetworkOf(canonicalAddress(address)), address).toBe(network);
      expect(sql[i], address).toEqual({ canon, network });
    });
  });

  it('the SQL and TypeScript agree on any IPv6 spelling, and both expand it', async () => {
    const samples = fc.sample(ipv6, { numRuns: 300, seed: 41 });
    const sql = await inSql(samples.map((s) => s.text));
    samples.forEach((s, i) => {
      const mapped = s.expanded.startsWith('0000:0000:0000:0000:0000:ffff:');
      const ts = canonicalAddress(s.text);
      if (!mapped) expect(ts, s.text).toBe(s.expanded);
      expect(sql[i], s.text).toEqual({ canon: ts, network: clientNetworkOf(ts) });
    });
  });
});

describe('cidrPrefixes', () => {
  it('turns networks into prefixes of the canonical text', () => {
    expect(cidrPrefixes('192.0.2.0/24')).toEqual(['192.0.2.']);
    expect(cidrPrefixes('2001:db8::/32')).toEqual(['2001:0db8:']);
    expect(cidrPrefixes('203.0.113.8/29')).toHaveLength(8);
    expect(cidrPrefixes('203.0.113.8/29')).toContain('203.0.113.15');
    expect(cidrPrefixes('10.16.0.0/12')).toContain('10.31.');
    expect(cidrPrefixes('2001:db8::/46')).toEqual([
      '2001:0db8:0000:',
      '2001:0db8:0001:',
      '2001:0db8:0002:',
      '2001:0db8:0003:',
    ]);
    expect(cidrPrefixes('0.0.0.0/0')).toEqual(['']);
  });
});
