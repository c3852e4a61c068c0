/**
 * `npm run bench [-- --quick] [-- --only=<name,...>]`: runs each entry of the bench's registry
 * (bench/benchEntries.ts) that `--only` selects, printing one JSON line a figure, and regenerates
 * bench/RESULTS.md and bench/RESULTS.json. `--quick` runs small stand-ins (under two minutes for the cases);
 * `--only` re-runs some entries and keeps the others' figures from the last run of the same mode.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CONCURRENCY, PAGE_SIZE, round } from './benchCases.ts';
import { benchEntries } from './benchEntries.ts';
import type { BenchContext } from './benchEntry.ts';
import { renderResults } from './renderResults.ts';
import type { ResultsInput } from './resultsInput.ts';

const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
/** The figures behind RESULTS.md, so that `--only` can re-run some entries and keep the rest. */
const rawPath = fileURLToPath(new URL('./RESULTS.json', import.meta.url));

const quick = process.argv.includes('--quick');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');

function readPrevious(): ResultsInput | undefined {
  try {
    const raw = JSON.parse(readFileSync(rawPath, 'utf8')) as ResultsInput;
    return raw.quick === quick ? { ...raw, at: new Date(raw.at) } : undefined;
  } catch {
    return undefined;
  }
}

const loadBefore = round(loadavg()[0] ?? 0);
let failed = 0;
const entries = benchEntries(quick);
const ctx: BenchContext = {
  quick,
  /** Every figure of this invocation is stamped with its start: `--only` runs keep others' stamps. */
  runAt: new Date().toISOString(),
  previous: readPrevious(),
  fresh: {},
  selects: (name) => !only || only.includes(name),
  async attempt(label, measure) {
    try {
      return await measure();
    } catch (error) {
      failed++;
      console.log(JSON.stringify({ ...label, error: String(error) }));
      return undefined;
    }
  },
};
for (const entry of entries) {
  if (!(entry.names ?? [entry.name]).some(ctx.selects)) continue;
  Object.assign(ctx.fresh, await entry.run(ctx));
}

// `--only` re-runs some entries of the last run of the same mode: the others keep their recorded figures.
const previous = only ? ctx.previous : undefined;
const merged: ResultsInput = {
  quick,
  node: process.versions.node,
  concurrency: CONCURRENCY,
  pageSize: PAGE_SIZE,
  results: [],
  cold: undefined,
  ...Object.assign({}, ...entries.map((e) => e.merge?.(ctx.fresh, previous) ?? {})),
  at: new Date(),
  load: [loadBefore, round(loadavg()[0] ?? 0)] as [number, number],
};
writeFileSync(rawPath, `${JSON.stringify(merged, null, 2)}\n`);
writeFileSync(resultsPath, renderResults(merged, entries));
// Biome formats Markdown tables too (`npm run lint` covers this file): format what was just written.
spawnSync(
  fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url)),
  ['format', '--write', resultsPath, rawPath],
  {
    stdio: 'ignore',
  },
);
console.log(JSON.stringify({ bench: 'done', results: resultsPath, failed }));
process.exitCode = failed ? 1 : 0;
