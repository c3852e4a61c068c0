/**
 * Child of bench/rescanCost.ts: archives the days asked for into a new temp folder, then asks for the same
 * days again in the same folder (a rescan: every record is archived already), alone in its process.
 * Prints one JSON line with both runs' wall and CPU seconds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Day } from '../lib/foundation/clock/day.ts';
import { measuredLocalRun } from './measuredLocalRun.ts';

const args = JSON.parse(process.argv[2] ?? '{}') as { url: string; onlyDays: Day[] };
const dir = await mkdtemp(join(tmpdir(), 'ta-bench-rescan-'));
try {
  const extra = { onlyDays: args.onlyDays };
  const first = await measuredLocalRun(args.url, process.env, extra, undefined, dir);
  const again = await measuredLocalRun(args.url, process.env, extra, undefined, dir);
  const figures = (run: typeof first) => ({
    seconds: run.seconds,
    cpuSeconds: run.cpuSeconds,
    recordsNew: run.summary.recordsNew,
    recordsSeen: run.summary.days.reduce((n, d) => n + d.distinctSeen, 0),
    pages: run.summary.days.reduce((n, d) => n + d.pages, 0),
  });
  console.log(JSON.stringify({ first: figures(first), rescan: figures(again) }));
} finally {
  await rm(dir, { recursive: true, force: true });
}
