import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHistoryParquet } from '../../lib/archive/parquet/writeHistoryParquet.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';

/** A history row with every column set; `n` makes the id and start time distinct. */
export function row(n: number, start = '2026-11-20T10:00:00.000Z'): ArchiveRow {
  const startTime = new Date(Date.parse(start) + n * 60_000);
  return {
    record_id: n.toString(16).padStart(32, '0'),
    session_id: (n + 1).toString(16).padStart(32, '0'),
    start_time: startTime,
    end_time: new Date(startTime.getTime() + 30_000),
    user_email: `u${n}@example.com`,
    token_value: null,
    virtual_token_value: null,
    token_hmac: null,
    virtual_token_hmac: null,
    domains: ['a.example.com'],
    mode: 'http',
    mode_udp: '',
    client_ip: '[10.0.0.1]:1000',
    client_address: '10.0.0.1',
    client_port: 1000,
    port: null,
    extra_json: null,
    archived_at: new Date('2026-11-22T00:00:00.000Z'),
    start_time_text: null,
    end_time_text: null,
  };
}

/** Parquet bytes of rows `ns`. */
export async function parquetOf(ns: number[], start?: string): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'ta-fixture-'));
  try {
    const file = join(dir, 'f.parquet');
    await writeHistoryParquet(
      ns.map((n) => row(n, start)),
      file,
    );
    return new Uint8Array(await readFile(file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
