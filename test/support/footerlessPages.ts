import { readFile } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { parquetHeader } from 'hyparquet/src/column.js';
import { snappyUncompress } from 'hyparquet/src/snappy.js';
import { readHistoryRows } from '../../lib/archive/parquet/readHistoryParquet.ts';

/**
 * The pages of a Parquet file that has no footer, decompressed: what a run killed mid-write leaves
 * behind (a walk's draft holds whole row groups but no footer, which is written at close). Page headers
 * follow one another from byte 4 (after `PAR1`), so the pages are read in order without the footer's
 * schema or offsets; the codec, also named only in the footer, is found by trying each one the writer
 * uses. A page cut short by the kill ends the walk. For scans (a token must not be in any byte a
 * reader can recover), not for reading rows.
 */
export function footerlessPages(bytes: Uint8Array): Uint8Array[] {
  const pages: Uint8Array[] = [];
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== 'PAR1') return pages;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = { view, offset: 4 };
  while (reader.offset < bytes.byteLength - 8) {
    let header: ReturnType<typeof parquetHeader>;
    try {
      header = parquetHeader(reader);
    } catch {
      break; // the footer, or a header cut short
    }
    // A header torn by the kill can decode to any shape (a size read as a bigint, say): the walk ends there.
    if (typeof header.compressed_page_size !== 'number' || typeof header.uncompressed_page_size !== 'number')
      break;
    const start = reader.offset;
    const end = start + header.compressed_page_size;
    if (!header.type || header.compressed_page_size < 0 || end > bytes.byteLength) break;
    const v2 = header.data_page_header_v2;
    const levels = v2
      ? Number(v2.definition_levels_byte_length) + Number(v2.repetition_levels_byte_length)
      : 0;
    if (!Number.isSafeInteger(levels) || levels < 0 || start + levels > end) break;
    const body = bytes.subarray(start + levels, end);
    const plain = v2 && !v2.is_compressed ? body : decompress(body, header.uncompressed_page_size - levels);
    pages.push(bytes.subarray(start, start + levels), plain ?? body);
    reader.offset = end;
  }
  return pages;
}

type Codec = (b: Uint8Array, size: number) => Uint8Array;
const CODECS: Codec[] = [
  (b) => zlib.gunzipSync(b),
  (b) =>
    (zlib as unknown as { zstdDecompressSync?: (b: Uint8Array) => Uint8Array }).zstdDecompressSync?.(b) ?? b,
  (b, size) => {
    const out = new Uint8Array(size);
    snappyUncompress(b, out);
    return out;
  },
];

function decompress(body: Uint8Array, size: number): Uint8Array | undefined {
  if (body.byteLength === size) return body; // stored uncompressed
  for (const codec of CODECS) {
    try {
      const out = codec(body, size);
      if (out.byteLength === size && out !== body) return out;
    } catch {
      // not this codec
    }
  }
  return undefined;
}

/**
 * The text of a file as a reader could recover it: Parquet decoded row by row; a Parquet file without
 * a footer (a draft of a killed run) page by page, decompressed; anything else raw. Compressed bytes
 * alone would hide a token, so they are never all the scan sees.
 */
export async function readable(path: string): Promise<string> {
  const bytes = await readFile(path);
  if (path.endsWith('.parquet')) {
    try {
      return JSON.stringify(await readHistoryRows(new Uint8Array(bytes)), (_k, v) =>
        typeof v === 'bigint' ? String(v) : v,
      );
    } catch {
      const pages = footerlessPages(new Uint8Array(bytes));
      return [bytes, ...pages]
        .map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('latin1'))
        .join('\n');
    }
  }
  return bytes.toString('latin1');
}
