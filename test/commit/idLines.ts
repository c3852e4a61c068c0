import { writeFile } from 'node:fs/promises';
import type { DatasetWriter } from '../../lib/archive/commit/partitionCommitter.ts';

/** The commit protocol alone, without Parquet: rows are ids, files are one id a line. */
export const idLines: DatasetWriter<string> = {
  dataset: 'history',
  async write(rows, localPath) {
    const out: string[] = [];
    for await (const r of rows) out.push(r);
    await writeFile(localPath, out.join('\n'));
    return { rows: out.length };
  },
  async *readIds(source) {
    const text = new TextDecoder().decode(await source.read(0, source.byteLength));
    for (const id of text.split('\n')) if (id) yield id;
  },
  idOf: (row) => row,
};
