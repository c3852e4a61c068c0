/**
 * `node bin/run-ts.js bench/bodyParseMemory.ts [MiB]`: the memory one history page body costs at the
 * client's cap (`MAX_BODY_BYTES`, or `MiB`). For each body shape (`bodyShapes.ts`), and for the bodies a
 * walk holds at once at the default concurrency, a child process (`bodyParseChild.ts`, run with
 * `--expose-gc`) serves the body from a local server, asks for it through the real client and reports its
 * peak RSS. Prints one JSON line per case.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BODY_SHAPES, type BodyShape } from '../devkit/bodyShapes.ts';
import { MAX_BODY_BYTES } from '../lib/archive/upstream/bodyLimits.ts';

const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));
const child = fileURLToPath(new URL('./bodyParseChild.ts', import.meta.url));
const bytes = process.argv[2] ? Number(process.argv[2]) * 1024 * 1024 : MAX_BODY_BYTES;

/** Each shape alone, then the most a walk at PAGE_CONCURRENCY 2 holds: two bodies in flight, four pages kept. */
const cases: [BodyShape, number][] = [
  ...BODY_SHAPES.map((s): [BodyShape, number] => [s, 1]),
  ['objects', 2],
  ['limit', 4],
];

for (const [shape, pages] of cases) {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', runTs, child, shape, String(bytes), String(pages)],
    {
      encoding: 'utf8',
    },
  );
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.status !== 0 || line === '') throw new Error(`${shape} x${pages}: ${run.stderr}`);
  const r = JSON.parse(line) as { peakRssMiB: number; baselineRssMiB: number };
  process.stdout.write(
    `${JSON.stringify({ ...r, aboveBaselineMiB: Math.round((r.peakRssMiB - r.baselineRssMiB) * 10) / 10 })}\n`,
  );
}
