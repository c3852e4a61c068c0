/**
 * One spelling per client address, the same in TypeScript and in the rules' SQL
 * ({@link canonicalAddressSql}): IPv6 lower-case with every group of four digits and no `::`,
 * IPv4-mapped IPv6 (`::ffff:192.0.2.1`, `::ffff:c000:201`) folded to IPv4, brackets and a zone dropped.
 * The stored value keeps what was sent; this is for comparisons and networks only.
 */
export function canonicalAddress(address: string): string {
  const a = address.trim().toLowerCase().replace(/^\[/, '').replace(/\]$/, '').replace(/%.*$/, '');
  if (!a.includes(':')) return a;
  const mapped = /^[0:]*:ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1] ?? a;
  let x = a.startsWith('::') ? `0${a}` : a;
  x = x.endsWith('::') ? `${x}0` : x;
  const colons = x.split(':').length - 1;
  if (x.includes('::')) x = x.replace('::', `:${'0:0:0:0:0:0:0:0:'.slice(0, 2 * Math.max(0, 8 - colons))}`);
  const groups = Array.from({ length: 8 }, (_, i) => (x.split(':')[i] ?? '').padStart(4, '0').slice(-4));
  const e = groups.join(':');
  if (e.startsWith('0000:0000:0000:0000:0000:ffff:')) {
    const hex = `${groups[6]}${groups[7]}`;
    return [0, 2, 4, 6].map((i) => String(Number.parseInt(hex.slice(i, i + 2), 16))).join('.');
  }
  return e;
}

/** The client network of a canonical address: IPv4 /24 (`198.51.100.0/24`), IPv6 /48 (`2001:0db8:0000::/48`). */
export function clientNetworkOf(canonical: string): string {
  if (!canonical.includes(':')) return `${canonical.split('.').slice(0, 3).join('.')}.0/24`;
  return `${canonical.slice(0, 14)}::/48`;
}

const HEX = "'0123456789abcdef'";
const nibble = (g: string, i: number) => `(strpos(${HEX}, substr(${g}, ${i}, 1)) - 1)`;
const octet = (g: string, i: number) => `CAST(16 * ${nibble(g, i)} + ${nibble(g, i + 1)} AS varchar)`;

/**
 * The SQL of {@link canonicalAddress} over `column`, as nested projections of `from` (a subquery or
 * table with `column`): adds `client_canon` and `client_network`. Only functions both engines share.
 */
export function canonicalAddressSql(from: string, column = 'client_address'): string {
  const bare = `CASE WHEN strpos(${column}, '%') > 0 THEN substr(${column}, 1, strpos(${column}, '%') - 1) ELSE ${column} END`;
  const step1 = `SELECT s0.*, lower(${bare}) AS addr_a FROM ${from} s0`;
  const padded = `CASE WHEN strpos(addr_a, '::') = 1 THEN '0' || addr_a ELSE addr_a END`;
  const step2 = `SELECT s1.*, CASE WHEN substr(addr_p1, length(addr_p1) - 1, 2) = '::' THEN addr_p1 || '0' ELSE addr_p1 END AS addr_p FROM (SELECT s1a.*, ${padded} AS addr_p1 FROM (${step1}) s1a) s1`;
  const colons = `(length(addr_p) - length(replace(addr_p, ':', '')))`;
  const filled = `CASE WHEN strpos(addr_p, '::') > 0 THEN replace(addr_p, '::', ':' || substr('0:0:0:0:0:0:0:0:', 1, 2 * (8 - ${colons}))) ELSE addr_p END`;
  const step3 = `SELECT s2.*, ${filled} AS addr_f FROM (${step2}) s2`;
  const group = (i: number) => `lpad(split_part(addr_f, ':', ${i}), 4, '0')`;
  const expanded = Array.from({ length: 8 }, (_, i) => group(i + 1)).join(" || ':' || ");
  const step4 = `SELECT s3.*, ${expanded} AS addr_e FROM (${step3}) s3`;
  const mappedRe = "'^[0:]*:ffff:([0-9]+[.][0-9]+[.][0-9]+[.][0-9]+)$'";
  const g7 = 'substr(addr_e, 31, 4)';
  const g8 = 'substr(addr_e, 36, 4)';
  const hexMapped = [octet(g7, 1), octet(g7, 3), octet(g8, 1), octet(g8, 3)].join(" || '.' || ");
  const canon = `CASE WHEN addr_a IS NULL THEN NULL
      WHEN strpos(addr_a, ':') = 0 THEN addr_a
      WHEN regexp_like(addr_a, ${mappedRe}) THEN regexp_extract(addr_a, ${mappedRe}, 1)
      WHEN substr(addr_e, 1, 30) = '0000:0000:0000:0000:0000:ffff:' THEN ${hexMapped}
      ELSE addr_e END`;
  const step5 = `SELECT s4.*, ${canon} AS client_canon FROM (${step4}) s4`;
  const network = `CASE WHEN client_canon IS NULL THEN NULL
      WHEN strpos(client_canon, ':') = 0
      THEN regexp_extract(client_canon, '^([0-9]+[.][0-9]+[.][0-9]+)[.]', 1) || '.0/24'
      ELSE substr(client_canon, 1, 14) || '::/48' END`;
  return `SELECT s5.*, ${network} AS client_network FROM (${step5}) s5`;
}
