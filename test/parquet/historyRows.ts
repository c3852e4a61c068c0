import { type ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { HISTORY_PARQUET_SCHEMA } from '../../lib/archive/parquet/historySchema.ts';
import { type ParquetCompression, parquetCompressors } from '../../lib/archive/parquet/parquetCompression.ts';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import { baseRecord, documentedRecord, TEST_TOKEN_KEY } from '../records/historyRecords.ts';

const archivedAt = new Date('2025-02-08T03:04:05.678Z');

/** Rows covering the awkward cases: nulls, empty lists, non-ASCII, IPv6, extras, odd times. */
export function edgeCaseRows(): ArchiveRow[] {
  const keep = { tokenPolicy: 'keep', tokenKey: TEST_TOKEN_KEY, archivedAt } as const;
  const hash = { tokenPolicy: 'hash', tokenKey: TEST_TOKEN_KEY, archivedAt } as const;
  return [
    toArchiveRow(documentedRecord(), hash),
    toArchiveRow(
      baseRecord({
        client_ip: '[2001:db8::1]:443',
        mode: 'tcp',
        port: 10003,
        token_value: 'tok',
        virtual_token_value: 'sJsufpgMMl-10003',
        region: 'eu',
      }),
      keep,
    ),
    toArchiveRow(
      baseRecord({ end_time: null, domains: [], token_value: null, virtual_token_value: null }),
      keep,
    ),
    toArchiveRow(
      baseRecord({
        user_email: 'jürgen.ßtraße@exämple.com',
        domains: ['日本語.example', 'emoji-😀.example', 'e\u0301.example'],
        mode_udp: 'ünïcode',
        token_value: 'tøken-✓',
        note: 'naïve ☃ "quoted" \\ back',
      }),
      keep,
    ),
    toArchiveRow(baseRecord({ client_ip: 'garbage', domains: [''] }), hash),
    toArchiveRow(baseRecord({ client_ip: '2001:db8::42', mode_udp: 'udp', port: 0 }), {
      tokenPolicy: 'drop',
      tokenKey: TEST_TOKEN_KEY,
      archivedAt,
    }),
    toArchiveRow(
      baseRecord({ start_time: '1999-12-31T23:59:59.999Z', end_time: '2000-01-01T00:00:00.000Z' }),
      hash,
    ),
    toArchiveRow(baseRecord({ start_time: '2099-06-30T12:00:00.001-07:00', port: 2_147_483_647 }), hash),
    toArchiveRow(
      baseRecord({
        start_time: '2025-02-06T16:16:44Z',
        domains: Array.from({ length: 40 }, (_, i) => `d${i}.example`),
      }),
      hash,
    ),
    toArchiveRow(baseRecord({ client_ip: '1.2.3.4:80', extra: { nested: [1, { b: 2, a: 1 }] } }), hash),
  ];
}

/** A library writer of history files into `writer`, with statistics, as the archive's writers set it up. */
export function historyParquetWriter(
  writer: ByteWriter,
  codec: ParquetCompression | 'UNCOMPRESSED',
  createdBy = 'test',
): ParquetWriter {
  return new ParquetWriter({
    writer,
    schema: HISTORY_PARQUET_SCHEMA,
    codec,
    compressors: codec === 'UNCOMPRESSED' ? {} : parquetCompressors(codec),
    statistics: true,
    createdBy,
  });
}
