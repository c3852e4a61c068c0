import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';

/**
 * Deterministic, realistic-looking archive rows, generated lazily so that callers (the benchmark and the
 * streaming test) can produce millions of rows without holding them. Values repeat the way real history
 * does (few users, tokens and domains; unique ids and client ports), which exercises dictionary encoding.
 */
export function* syntheticRows(count: number, seed = 1): Generator<ArchiveRow> {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    // xorshift32: fast and reproducible; quality is irrelevant here.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const hex64 = (): string => {
    let out = '';
    for (let i = 0; i < 8; i++) out += next().toString(16).padStart(8, '0');
    return out;
  };
  const users = Array.from({ length: 50 }, (_, i) => `user${i}@example.com`);
  const tokenHashes = Array.from({ length: 200 }, hex64);
  const domains = Array.from({ length: 300 }, (_, i) => `t${i}.a.pinggy.link`);
  const base = Date.UTC(2025, 1, 6);
  const archivedAt = new Date(Date.UTC(2025, 1, 8));
  for (let i = 0; i < count; i++) {
    const start = base + Math.floor((i / count) * 86_400_000);
    const tcp = next() % 4 === 0;
    const a = next();
    const clientPort = 1024 + (next() % 64_000);
    const recordId = hex64();
    yield {
      record_id: recordId,
      session_id: recordId.slice(32),
      start_time: new Date(start),
      end_time: next() % 20 === 0 ? null : new Date(start + (next() % 7_200_000)),
      user_email: users[next() % users.length] ?? '',
      token_value: null,
      virtual_token_value: null,
      token_hmac: tokenHashes[next() % tokenHashes.length] ?? null,
      virtual_token_hmac: tcp ? (tokenHashes[next() % tokenHashes.length] ?? null) : null,
      domains: tcp ? [] : [domains[next() % domains.length] ?? '', 'example.com'],
      mode: tcp ? 'tcp' : 'http',
      mode_udp: '',
      client_ip: `[${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}]:${clientPort}`,
      client_address: `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`,
      client_port: clientPort,
      port: tcp ? 10_000 + (next() % 1000) : null,
      extra_json: null,
      archived_at: archivedAt,
      start_time_text: null,
      end_time_text: null,
    };
  }
}
