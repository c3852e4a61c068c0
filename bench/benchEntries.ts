import { type BenchCase, FULL, QUICK, runCase } from './benchCases.ts';
import { type BenchEntry, kept } from './benchEntry.ts';
import type { BigDayResult } from './bigDay.ts';
import type { CaseResult } from './caseResult.ts';
import { extraEntries } from './extraMeasurements.ts';
import {
  ageLines,
  bigDayLines,
  casesLines,
  coldLines,
  fanoutLines,
  fanoutLocalLines,
  reportLines,
  shareLines,
} from './resultSections.ts';
import { shippedCpuShare } from './shippedCpuShare.ts';

/** The cases of this mode, each its own `--only` name; measured one after another. */
function casesEntry(quick: boolean): BenchEntry {
  const cases: BenchCase[] = quick ? QUICK : FULL;
  return {
    name: 'cases',
    names: cases.map((c) => c.name),
    async run(ctx) {
      const results: CaseResult[] = [];
      for (const c of cases.filter((c) => ctx.selects(c.name))) {
        const r = await ctx.attempt({ bench: 'case', name: c.name }, async () => ({
          ...(await runCase(c, quick ? 1 : 3)),
          measuredAt: ctx.runAt,
        }));
        if (r) {
          results.push(r);
          console.log(JSON.stringify(r));
        }
      }
      return { results };
    },
    merge: (fresh, previous) => ({
      results: cases
        .map(
          (c) =>
            fresh.results?.find((r) => r.name === c.name) ??
            kept(
              previous?.results.find((r) => r.name === c.name),
              previous,
            ),
        )
        .filter((r): r is CaseResult => r !== undefined),
    }),
    render: casesLines,
  };
}

/**
 * Big days over runs of the CLI at real latency (`big-day`): each about 4 budgets long at the bound, so
 * that several runs resume the walk and are cut again (30k at 40 ms, the scenario test's day, ends in its
 * second run).
 */
interface BigDayCase {
  name: string;
  rows: number;
  latencyMs: number;
  pageRows?: number;
  /** Each run in a CPU quota of the share of a vCPU Lambda gives the stack's engine function. */
  atShare?: boolean;
}
/** Each case unconstrained and at the engine function's CPU share (`-share`). */
const bothShares = (c: BigDayCase): BigDayCase[] => [c, { ...c, name: `${c.name}-share`, atShare: true }];
const bigDayCases = (quick: boolean): BigDayCase[] =>
  quick
    ? bothShares({ name: 'big-day-10k-40ms', rows: 10_000, latencyMs: 40 })
    : [
        ...bothShares({ name: 'big-day-30k-40ms', rows: 30_000, latencyMs: 40 }),
        ...bothShares({ name: 'big-day-100k-40ms', rows: 100_000, latencyMs: 40 }),
        { name: 'big-day-50k-75ms', rows: 50_000, latencyMs: 75 },
        { name: 'big-day-30k-150ms', rows: 30_000, latencyMs: 150 },
        // 2000-row pages: 150 pages, more CPU a page than a run at 40 ms allows even unconstrained.
        ...bothShares({ name: 'big-day-300k-40ms-2000rows', rows: 300_000, latencyMs: 40, pageRows: 2000 }),
      ];

function bigDayEntry(quick: boolean): BenchEntry {
  const all = bigDayCases(quick);
  return {
    name: 'big-day',
    names: ['big-day', ...all.map((c) => c.name)],
    async run(ctx) {
      const chosen = all.filter((c) => ctx.selects('big-day') || ctx.selects(c.name));
      if (chosen.length === 0) return {};
      const { bigDay } = await import('./bigDay.ts');
      const bigDays: (BigDayResult & { measuredAt: string })[] = [];
      for (const c of chosen) {
        const { atShare, ...opts } = c;
        const r = await ctx.attempt({ bench: 'big-day', name: c.name }, async () => ({
          ...(await bigDay({ ...opts, ...(atShare ? { cpuShare: shippedCpuShare().share } : {}) })),
          measuredAt: ctx.runAt,
        }));
        if (r) {
          bigDays.push(r);
          console.log(JSON.stringify(r));
        }
      }
      return { bigDays };
    },
    // Cases named one by one (`--only=big-day-30k-40ms-share`) replace theirs; the others keep their figures.
    merge: (fresh, previous) => ({
      bigDays: fresh.bigDays
        ? all.flatMap((c) => {
            const r =
              fresh.bigDays?.find((b) => b.name === c.name) ??
              previous?.bigDays?.find((b) => b.name === c.name);
            return r ? [r] : [];
          })
        : previous?.bigDays,
    }),
    // The finish step's union (`finish-union`) is rendered with the big days; the CPU share section after them.
    render: (input) => [
      ...(input.bigDays?.length || input.finishUnion?.length ? bigDayLines(input) : []),
      ...shareLines(input),
    ],
  };
}

/**
 * A big day through the fan-out's synthesized state machine under aws-local-stepfunctions (`fanout-local`), at
 * the stack's concurrency, against the replaying server at 75 and 150 ms a page.
 */
const fanoutLocalCases = (quick: boolean) =>
  quick
    ? [{ name: 'fanout-local-5k-75ms', rows: 5_000, latencyMs: 75 }]
    : [
        { name: 'fanout-local-30k-75ms', rows: 30_000, latencyMs: 75 },
        { name: 'fanout-local-30k-150ms', rows: 30_000, latencyMs: 150 },
      ];

/** The bench's registry, in the order it measures and RESULTS.md shows them. */
export function benchEntries(quick: boolean): BenchEntry[] {
  return [
    casesEntry(quick),
    {
      name: 'cold-start',
      async run(ctx) {
        const cold = await ctx.attempt({ bench: 'cold-start' }, async () => {
          const { coldStart } = await import('./coldStart.ts');
          return { ...(await coldStart(quick ? 3 : 7)), measuredAt: ctx.runAt };
        });
        if (cold) console.log(JSON.stringify({ bench: 'cold-start', ...cold, maxMs: 200 }));
        return cold ? { cold } : {};
      },
      merge: (fresh, previous) => ({ cold: fresh.cold ?? kept(previous?.cold, previous) }),
      render: coldLines,
    },
    {
      name: 'report-3y',
      async run(ctx) {
        const report = await ctx.attempt({ bench: 'report-3y' }, async () => {
          const { reportThreeYears, REPORT_TARGETS } = await import('./reportThreeYears.ts');
          const r = { ...(await reportThreeYears(quick ? 1 : 3)), measuredAt: ctx.runAt };
          console.log(JSON.stringify({ bench: 'report-3y', ...r, ...REPORT_TARGETS }));
          return r;
        });
        return report ? { report } : {};
      },
      merge: (fresh, previous) => ({ report: fresh.report ?? kept(previous?.report, previous) }),
      render: (input) => (input.report ? reportLines(input.report) : []),
    },
    bigDayEntry(quick),
    {
      name: 'finish-union',
      async run(ctx) {
        const { finishUnionMemory, FINISH_UNION_SIZES } = await import('./finishUnionMemory.ts');
        const finishUnion = [];
        for (const rows of quick ? [200_000] : FINISH_UNION_SIZES) {
          const r = await ctx.attempt({ bench: 'finish-union', rows }, async () => ({
            ...(await finishUnionMemory(rows)),
            measuredAt: ctx.runAt,
          }));
          if (r) {
            finishUnion.push(r);
            console.log(JSON.stringify(r));
          }
        }
        return { finishUnion };
      },
      merge: (fresh, previous) => ({ finishUnion: fresh.finishUnion ?? previous?.finishUnion }),
    },
    {
      name: 'fanout-local',
      async run(ctx) {
        const { fanoutLocal: run } = await import('./fanoutLocal.ts');
        const fanoutLocal = [];
        for (const c of fanoutLocalCases(quick)) {
          // At the functions' share too: on a machine of fewer cores than the map's functions share, the cap.
          const r = await ctx.attempt({ bench: 'fanout-local', name: c.name }, async () => ({
            ...(await run({ ...c, functionCpuShare: shippedCpuShare().share })),
            measuredAt: ctx.runAt,
          }));
          if (r) {
            fanoutLocal.push(r);
            console.log(JSON.stringify(r));
          }
        }
        return { fanoutLocal };
      },
      merge: (fresh, previous) => ({ fanoutLocal: fresh.fanoutLocal ?? previous?.fanoutLocal }),
      render: (input) => (input.fanoutLocal?.length ? fanoutLocalLines(input.fanoutLocal) : []),
    },
    {
      name: 'fanout-2M',
      async run(ctx) {
        const fanout = await ctx.attempt({ bench: 'fanout-2M' }, async () => {
          const { fanoutSimulation } = await import('./fanoutSimulation.ts');
          // Each map item costs a Lambda invocation on top of its pages: a cold start, as measured above.
          // 60k sessions a heavy day: 600 pages of 100, more than the stack's 500 range pages, so a day is split.
          const overhead = ((ctx.fresh.cold ?? ctx.previous?.cold)?.medianMs ?? 200) / 1000;
          return { ...(await fanoutSimulation(quick ? 5_000 : 60_000, overhead)), measuredAt: ctx.runAt };
        });
        if (fanout) console.log(JSON.stringify({ bench: 'fanout-2M', ...fanout }));
        return fanout ? { fanout } : {};
      },
      merge: (fresh, previous) => ({ fanout: fresh.fanout ?? kept(previous?.fanout, previous) }),
      render: (input) => (input.fanout ? fanoutLines(input.fanout) : []),
    },
    {
      name: 'archive-age',
      async run(ctx) {
        const age = await ctx.attempt({ bench: 'archive-age' }, async () => {
          const { archiveAge } = await import('./archiveAge.ts');
          return { ...(await archiveAge(quick)), measuredAt: ctx.runAt };
        });
        if (age) console.log(JSON.stringify({ bench: 'archive-age', ...age }));
        return age ? { age } : {};
      },
      merge: (fresh, previous) => ({ age: fresh.age ?? kept(previous?.age, previous) }),
      render: (input) => (input.age ? ageLines(input.age) : []),
    },
    ...extraEntries(quick),
    {
      name: 'detection-noise',
      async run(ctx) {
        await ctx.attempt({ bench: 'detection-noise' }, async () => {
          // The team profile through every rule: new findings a week per rule (all of them false alarms).
          const { detectionNoise } = await import('./detectionNoise.ts');
          console.log(JSON.stringify({ bench: 'detection-noise', ...(await detectionNoise(quick ? 2 : 8)) }));
        });
        return {};
      },
    },
    {
      name: 'emulator-dataset',
      async run() {
        const { datasetGeneration } = await import('./datasetGeneration.ts');
        const d = datasetGeneration();
        console.log(
          JSON.stringify({
            bench: 'emulator-dataset',
            ...d,
            maxColdWindowMs: 1_000,
            maxScaled60DaysMs: 4_000,
          }),
        );
        return {};
      },
    },
  ];
}
