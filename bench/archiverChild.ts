/**
 * Child of bench/run.ts: one full local archiving run (temp folder, local state folder) against the emulator,
 * alone in its process so that its peak RSS is the archiver's own. Prints one JSON line.
 */

import { DEFAULT_PARQUET_COMPRESSION } from '../lib/archive/parquet/parquetCompression.ts';
import type { Day } from '../lib/foundation/clock/day.ts';
import { type ColumnSizes, columnSizes } from './columnSizes.ts';
import { type DuckdbRewrite, duckdbRewrite } from './duckdbRewrite.ts';
import { measuredLocalRun } from './measuredLocalRun.ts';

const args = JSON.parse(process.argv[2] ?? '{}') as { url: string; onlyDays?: Day[]; columns?: boolean };
let sizes: ColumnSizes | undefined;
let rewrite: DuckdbRewrite | undefined;
let maxRssKiB = 0;
const { summary, seconds, cpuSeconds, peakRssMiB, baselineRssMiB, atPeak } = await measuredLocalRun(
  args.url,
  process.env,
  args.onlyDays ? { onlyDays: args.onlyDays } : {},
  async (dir) => {
    // Read after the run's peak RSS is taken, so the archiver's figures are untouched.
    maxRssKiB = process.resourceUsage().maxRSS;
    if (args.columns) sizes = await columnSizes(dir);
    if (args.columns) rewrite = await duckdbRewrite(dir, DEFAULT_PARQUET_COMPRESSION);
  },
);
console.log(
  JSON.stringify({
    seconds,
    cpuSeconds,
    node: process.versions.node,
    codec: DEFAULT_PARQUET_COMPRESSION,
    records: summary.recordsNew,
    days: summary.daysScanned,
    pages: summary.days.reduce((n, d) => n + d.pages, 0),
    files: summary.files,
    bytes: summary.bytes,
    // maxRSS (KiB) is the kernel's own high-water mark; the 20 ms sampler can miss a short peak.
    peakRssMiB: Math.max(peakRssMiB, Math.round(maxRssKiB / 1024)),
    // Where memory was at the sampled peak (MiB): the process before the run, and the V8 heap and
    // ArrayBuffers (id sets, row-group buffers) at the peak; the rest is code, threads and malloc.
    memory: { baselineRss: baselineRssMiB, ...atPeak },
    ...(sizes ? { sizes } : {}),
    ...(rewrite ? { duckdbRewrite: rewrite } : {}),
  }),
);
