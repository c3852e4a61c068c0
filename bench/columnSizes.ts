import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';

export interface ColumnSizes {
  files: number;
  bytes: number;
  /** Footer (metadata) bytes over all files. */
  footerBytes: number;
  /** Compressed bytes per top-level column over all files, with the encodings seen. */
  columns: { name: string; bytes: number; encodings: string[]; codecs: string[] }[];
}

/** Where the bytes of the Parquet files under `root/history/` go, column by column, from their footers. */
export async function columnSizes(root: string): Promise<ColumnSizes> {
  return columnSizesOf(await parquetFiles(join(root, 'history')));
}

/** Where the bytes of these Parquet files go, column by column, from their footers. */
export async function columnSizesOf(paths: readonly string[]): Promise<ColumnSizes> {
  const out: ColumnSizes = { files: 0, bytes: 0, footerBytes: 0, columns: [] };
  const byName = new Map<string, { bytes: number; encodings: Set<string>; codecs: Set<string> }>();
  for (const path of paths) {
    const bytes = await readFile(path);
    const meta = parquetMetadata(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    );
    out.files++;
    out.bytes += bytes.byteLength;
    out.footerBytes += bytes.readUInt32LE(bytes.byteLength - 8) + 8;
    for (const group of meta.row_groups) {
      for (const chunk of group.columns) {
        const m = chunk.meta_data;
        if (!m) continue;
        const name = m.path_in_schema[0] ?? '?';
        const entry = byName.get(name) ?? { bytes: 0, encodings: new Set(), codecs: new Set() };
        entry.bytes += Number(m.total_compressed_size);
        for (const e of m.encodings) entry.encodings.add(e);
        entry.codecs.add(m.codec);
        byName.set(name, entry);
      }
    }
  }
  out.columns = [...byName].map(([name, e]) => ({
    name,
    bytes: e.bytes,
    encodings: [...e.encodings],
    codecs: [...e.codecs],
  }));
  return out;
}

export async function parquetFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await parquetFiles(path)));
    else if (e.name.endsWith('.parquet')) out.push(path);
  }
  return out;
}
