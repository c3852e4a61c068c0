import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BigDayResult } from '../../bench/bigDay.ts';
import type { FanoutLocalResult } from '../../bench/fanoutLocal.ts';
import type { FanoutFigures } from '../../bench/fanoutSimulation.ts';
import { largestWithin, type UnionMemory } from '../../bench/finishUnionMemory.ts';
import { ENGINE_MEMORY_MIB, FULL_VCPU_MEMORY_MB } from '../../infra/constructs/archiveFunction.ts';
import { readStackSettings } from '../../infra/stackSettings.ts';
import { FINISH_MAX_IDS } from '../../lib/archive/fanout/finishMaxIds.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const results = JSON.parse(read('bench/RESULTS.json')) as {
  fanout?: FanoutFigures;
  finishUnion?: UnionMemory[];
  bigDays?: BigDayResult[];
  fanoutLocal?: FanoutLocalResult[];
};
/** The fan-out concurrency the stack deploys when cdk.json and the context say nothing. */
const deployed = readStackSettings(() => undefined).fanoutConcurrency;

/** README's "How big an account" section, white space folded: where the size figures live. */
const readmeSizes = (): string => {
  const readme = read('README.md');
  const start = readme.indexOf('\n## How big an account\n');
  expect(start, 'README has a "How big an account" section').toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end).replace(/\s+/g, ' ');
};

/** Millions, as the pages write them: `1.12M`, `44M`. */
const millions = (n: number): string => `${Number((n / 1_000_000).toFixed(2))}M`;

describe("README's first screen", () => {
  it('holds no benchmark figure: no timing, memory, load or session count in its first 30 lines', () => {
    const top = read('README.md').split('\n').slice(0, 30).join('\n');
    expect(top).not.toMatch(/\d\s*(ms|MiB|GiB|µs|s a page)\b|load average|\d(\.\d+)?M sessions|bench case/);
  });
});

describe('the account sizes README and docs/fanout.md state are those bench/RESULTS.json holds', () => {
  const f = results.fanout as FanoutFigures;

  it('has the fan-out figures (npm run bench -- --only=fanout-2M)', () => {
    expect(f?.wallMinutes.map((w) => w.concurrency)).toEqual([1, 4, 16]);
  });

  it("README's size section: each size figure with its bench case, a 2M day's time at the stack's default concurrency", () => {
    const top = readmeSizes();
    // From a run with the stack's settings (test/bench/shippedSettings.test.ts holds them to the template).
    expect(f.settings, "fanout-2M measured with the stack's settings").toBeDefined();
    expect(top).toContain(`**${millions(f.largestDayOneLambda)} sessions**`);
    expect(top).toContain(
      `**${f.wallMinutes.find((w) => w.concurrency === deployed)?.minutes} min** at the stack's **${deployed}** workers`,
    );
    expect(top).toContain('not measured on AWS (`fanout-2M`)');
    expect(
      results.finishUnion?.length,
      'finish-union measured (npm run bench -- --only=finish-union)',
    ).toBeTruthy();
    expect(top).toContain('(`finish-union`');
    expect(top).toContain('(docs/fanout.md)');
  });

  it("README's big day, at the archiver's CPU share: the runs the bench took, the runs the latency allows, the lowest resumed ratio and the load it ran at", () => {
    const top = readmeSizes();
    const b = results.bigDays?.find((x) => x.name === 'big-day-100k-40ms-share');
    expect(b, 'big-day measured (npm run bench -- --only=big-day)').toBeDefined();
    if (!b) return;
    expect(b.settings, "big-day-100k-40ms-share measured with the stack's settings").toBeDefined();
    // The share the template's memory buys, as the runs had it, and the function's Node.
    expect(b.cpuShare, 'big-day-100k-40ms-share ran in a CPU quota').toBe(
      Math.min(1, (b.settings?.memoryMb ?? 0) / FULL_VCPU_MEMORY_MB),
    );
    expect(b.runtime).toBe('lambda');
    expect(top).toContain(
      `in a CPU quota of **${b.cpuShare} of a core**, the share Lambda gives the archiver's ${b.settings?.memoryMb} MB, on the Lambda's Node (${b.node})`,
    );
    const [low, high] = [Math.min(...b.runs.map((r) => r.load)), Math.max(...b.runs.map((r) => r.load))];
    const loads =
      low.toFixed(0) === high.toFixed(0) ? low.toFixed(0) : `${low.toFixed(0)}–${high.toFixed(0)}`;
    expect(top).toContain(
      `a ${b.rows / 1000}k-session day at ${b.latencyMs} ms a page took **${b.runs.length} runs** of 6 s where its latency allows **${b.boundRuns}**`,
    );
    expect(top).toContain(
      `each resumed run fetched at least **${b.minResumedRatio.toFixed(2)}** of the pages the latency allows, at a load average of ${loads} on 2 cores`,
    );
    // A page's own work at the share: the most CPU a page any cut run's walk spent (the runs that finished are short).
    const walkCpu = b.runs.flatMap((r) =>
      r.ratio === undefined || r.walkCpuMsPerPage === undefined ? [] : [r.walkCpuMsPerPage],
    );
    expect(walkCpu.length, "big-day measured each cut run's CPU a page in the walk").toBeGreaterThan(0);
    expect(top).toContain(`a cut run's walk spent at most **${Math.max(...walkCpu)} CPU ms** a page`);
    // How late the latest run ended past its --max-run-ms, as the bench measured it.
    expect(b.maxOverrunMs, 'big-day measured with its overrun').toBeDefined();
    expect(top).toContain(
      b.maxOverrunMs <= 0
        ? `every run ended by its \`--max-run-ms\` (the latest **${-b.maxOverrunMs} ms** before it; \`big-day\``
        : `runs ended up to **${b.maxOverrunMs} ms** past their \`--max-run-ms\` (\`big-day\``,
    );
  });

  it("README's fan-out figures measured locally: the synthesized machine at the stack's concurrency, wall time and pages ÷ bound at 75 and 150 ms, every row once", () => {
    const top = readmeSizes();
    const cases = [...(results.fanoutLocal ?? [])].sort((a, b) => a.latencyMs - b.latencyMs);
    expect(
      cases.map((c) => c.latencyMs),
      'fanout-local measured (npm run bench -- --only=fanout-local)',
    ).toEqual([75, 150]);
    const [fast, slow] = cases as [FanoutLocalResult, FanoutLocalResult];
    for (const c of cases) {
      expect(c.settings, `${c.name} measured with the stack's settings`).toBeDefined();
      expect(c.concurrency).toBe(deployed);
      expect(c.archived).toEqual({ rows: c.rows, distinct: c.rows });
      expect(c.failedDays).toBe(0);
      expect(c.rows).toBe(fast.rows);
      // The ranges the map walked, and the attempts that failed and were walked again.
      const ranges = new Set((c.attempts ?? []).flatMap((a) => (/-r\d+$/.test(a.id) ? [a.id] : [])));
      expect(ranges.size).toBe(deployed);
      // No attempt failed: no range was given up and walked again.
      expect((c.attempts ?? []).flatMap(({ id, error }) => (error ? [{ id, error }] : []))).toEqual([]);
      // Each page fetched once: at most one extra request an item (the empty page that ends its range).
      expect(c.pages).toBeLessThanOrEqual((c.windowPages ?? 0) + (c.attempts ?? []).length);
    }
    const loads = cases.flatMap((c) => c.load);
    const [lowLoad, highLoad] = [Math.min(...loads).toFixed(0), Math.max(...loads).toFixed(0)];
    expect(top).toContain(
      `(\`fanout-local\`: the synthesized state machine under aws-local-stepfunctions at the stack's **${deployed}** workers, ` +
        `a day of ${Math.round(fast.rows / 1000)}k sessions in ${deployed} ranges, 100 rows a page): ` +
        `**${fast.wallSeconds} s** at ${fast.latencyMs} ms a page and **${slow.wallSeconds} s** at ${slow.latencyMs} ms, every row archived once; ` +
        `the workers fetched **${fast.ratio.toFixed(2)}** and **${slow.ratio.toFixed(2)}** of the pages ${deployed} workers at one request each allow in that time (each keeps 2 in flight), ` +
        `at a load average of ${lowLoad === highLoad ? lowLoad : `${lowLoad}–${highLoad}`} on 2 cores ` +
        "(no Lambda cold starts; every range walked once: ranges that commit the day's partition at the same moment wait out one another)",
    );
    expect(read('docs/fanout.md').replace(/\s+/g, ' ')).toContain(
      "Every range was walked once: the ranges commit the day's one partition at the same moment, and a writer whose conditional write lost waits a jittered, doubling backoff and tries again (up to 12 times",
    );
  });

  it('docs/fanout.md quotes the concurrency the stack deploys', () => {
    expect(read('docs/fanout.md')).toContain(`The stack deploys \`fanoutConcurrency\` **${deployed}**`);
    expect(read('docs/fanout.md')).toMatch(/`MaxConcurrency` = `fanoutConcurrency` \(default (\d+)/);
    expect(/`MaxConcurrency` = `fanoutConcurrency` \(default (\d+)/.exec(read('docs/fanout.md'))?.[1]).toBe(
      String(deployed),
    );
  });

  it("docs/fanout.md: the wall time of a 2M-session day by concurrency, the one-Lambda day and the time bound at the stack's concurrency", () => {
    const doc = read('docs/fanout.md').replace(/\s+/g, ' ');
    for (const w of f.wallMinutes)
      expect(doc).toMatch(new RegExp(`\\|\\s*${w.concurrency}\\s*\\|\\s*${w.minutes} min\\s*\\|`));
    expect(doc).toContain(`${millions(f.largestDayOneLambda)} sessions`);
    expect(f.concurrency).toBe(deployed);
    expect(doc).toContain(
      `by time alone, one orchestration at the stack's ${deployed} workers walks a day of up to **${millions(f.largestDayFanoutByTime)} sessions** within its 5 h timeout`,
    );
  });

  it("the largest day one finish step holds is the largest finish-union measured within the engine's memory: FINISH_MAX_IDS, README and docs/fanout.md say it", () => {
    const { held, past } = largestWithin(results.finishUnion ?? [], ENGINE_MEMORY_MIB);
    expect(held, 'a size measured within the memory').toBeDefined();
    expect(past, 'a size measured past it, so the bound is seen from both sides').toBeDefined();
    if (!held || !past) return;
    expect(FINISH_MAX_IDS).toBe(held.rows);
    expect(past.rows).toBeGreaterThan(held.rows);
    const top = readmeSizes();
    const doc = read('docs/fanout.md').replace(/\s+/g, ' ');
    const claim =
      `the largest day one finish step holds in the Lambda's ${ENGINE_MEMORY_MIB} MiB is **${millions(held.rows)} sessions** ` +
      `(peak ${held.peakRssMiB} MiB; ${millions(past.rows)} peaked at ${past.peakRssMiB} MiB)`;
    expect(top).toContain(claim);
    expect(doc).toContain(claim);
    expect(doc).toContain('`DAY_TOO_BIG`');
  });
});
