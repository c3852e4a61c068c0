/**
 * `node bin/run-ts.js bench/finishUnionMemory.ts [rows,...]`: the fan-out finish step's union of a day's
 * ids, measured. For each size, range id files (gzipped hex lines of an id set, as the range steps write them, ranges
 * of 1,000 pages of 100 rows) are written to a folder, then a child process (`finishUnionChild.ts`)
 * takes their union the way the finish step does and reports its peak RSS and the set's bytes. Prints one JSON line per size.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileObjectStore } from '../lib/archive/store/fileObjectStore.ts';
import { gzipIdLines } from '../lib/archive/walk/idLines.ts';
import { IdSet } from '../lib/foundation/ids/idSet.ts';

/**
 * The day sizes measured: up to the engine's memory and past it (the id set grows by half at 70% full, so
 * the peak steps up where it grows: past about 17.4M ids, and again further on).
 */
export const FINISH_UNION_SIZES = [
  2_000_000, 5_000_000, 10_000_000, 17_000_000, 18_000_000, 22_000_000, 26_000_000, 40_000_000,
];

/** Rows a range holds: 1,000 pages of 100 rows. */
const RANGE_ROWS = 100_000;

export interface UnionMemory {
  bench: 'finish-union';
  rows: number;
  ranges: number;
  /** Peak RSS of the process that took the union (MiB), and its RSS before reading any range. */
  peakRssMiB: number;
  baselineRssMiB: number;
  idSetMiB: number;
  seconds: number;
}

function* randomIds(n: number): Generator<string> {
  for (let left = n; left > 0; left -= 4096) {
    const bytes = randomBytes(16 * Math.min(4096, left));
    for (let o = 0; o < bytes.length; o += 16) yield bytes.subarray(o, o + 16).toString('hex');
  }
}

/** Writes the range files of a day of `rows` ids under `dir`; returns their keys. */
async function writeRanges(dir: string, rows: number): Promise<string[]> {
  const objects = createFileObjectStore(dir);
  const keys: string[] = [];
  for (let from = 0; from < rows; from += RANGE_ROWS) {
    const key = `ranges/${keys.length}.ids.gz`;
    // As a range step writes them: from its id set, in the set's own order.
    const ids = new IdSet(RANGE_ROWS);
    for (const id of randomIds(Math.min(RANGE_ROWS, rows - from))) ids.add(id);
    await objects.put(key, await gzipIdLines(ids));
    keys.push(key);
  }
  return keys;
}

/**
 * Of the sizes measured, the largest whose union peaked within `memoryMiB` (the day one finish step holds),
 * and the smallest that peaked past it, if one was measured.
 */
export function largestWithin(
  results: readonly UnionMemory[],
  memoryMiB: number,
): { held: UnionMemory | undefined; past: UnionMemory | undefined } {
  const bySize = [...results].sort((a, b) => a.rows - b.rows);
  return {
    held: bySize.filter((u) => u.peakRssMiB <= memoryMiB).at(-1),
    past: bySize.find((u) => u.peakRssMiB > memoryMiB),
  };
}

export async function finishUnionMemory(rows: number): Promise<UnionMemory> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-union-'));
  try {
    const keys = await writeRanges(dir, rows);
    const child = spawnSync(
      process.execPath,
      [
        fileURLToPath(new URL('../bin/run-ts.js', import.meta.url)),
        fileURLToPath(new URL('./finishUnionChild.ts', import.meta.url)),
        dir,
        ...keys,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (child.status !== 0) throw new Error(`union child failed: ${child.stderr}`);
    const r = JSON.parse(child.stdout.trim().split('\n').at(-1) as string);
    return { bench: 'finish-union', ranges: keys.length, ...r };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('finishUnionMemory.ts')) {
  for (const rows of (process.argv[2] ?? FINISH_UNION_SIZES.join(',')).split(',').map(Number))
    process.stdout.write(`${JSON.stringify(await finishUnionMemory(rows))}\n`);
}
