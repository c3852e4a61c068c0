import { cpus } from 'node:os';
import { ENGINE_MEMORY_MIB, FULL_VCPU_MEMORY_MB } from '../infra/constructs/archiveFunction.ts';
import { FINISH_MAX_IDS } from '../lib/archive/fanout/finishMaxIds.ts';
import { type ArchiveAgeResult, ageRatios } from './archiveAge.ts';
import type { BigDayResult } from './bigDay.ts';
import type { CaseResult } from './caseResult.ts';
import type { FanoutLocalResult } from './fanoutLocal.ts';
import type { FanoutFigures } from './fanoutSimulation.ts';
import { largestWithin, type UnionMemory } from './finishUnionMemory.ts';
import { median } from './median.ts';
import { methodology } from './methodology.ts';
import { renderScriptTargets } from './renderScriptTargets.ts';
import { REPORT_TARGETS, type ReportBenchResult } from './reportTargets.ts';
import type { ResultsInput } from './resultsInput.ts';
import {
  overridesText,
  type RecordedSettings,
  type SettingOverrides,
  settingsText,
} from './shippedSettings.ts';

/** The sections of bench/RESULTS.md, one a bench entry (bench/benchEntries.ts renders them in its order). */

const MiB = 1_048_576;

/** The most CPU ms a 100-row page's work may take at the function's share, while its walk runs. */
export const WALK_CPU_MS_A_PAGE = 8;

/** The cases (`npm run bench -- --only=<case>`): the table of bound and archiver, then their details. */
export function casesLines(input: ResultsInput): string[] {
  const { results } = input;
  const lines = [
    `${methodology('cases')} ${methodology(input.quick ? 'cases-quick' : 'cases-full')}`,
    '',
    '| case | records | pages | bound s | archiver s | ratio | target | met | peak RSS MiB | target | met |',
    '|---|---:|---:|---:|---:|---:|---:|:---:|---:|---:|:---:|',
  ];
  const met = (target: number | undefined, ok: boolean): string =>
    target === undefined ? '' : ok ? 'yes' : 'NO';
  for (const r of results) {
    lines.push(
      `| ${r.description} | ${r.records} | ${r.pages} | ${r.boundSeconds}${r.boundBasis === 'latency' ? ` (measured ${r.measuredBoundSeconds})` : ''} | ` +
        `${r.archiverSeconds} | ${r.ratio}× | ${r.maxRatio === undefined ? '' : `≤ ${r.maxRatio}×`} | ` +
        `${met(r.maxRatio, r.ratio <= (r.maxRatio ?? 0))} | ` +
        `${r.peakRssMiB} | ${r.maxRssMiB === undefined ? '' : `≤ ${r.maxRssMiB}`} | ` +
        `${met(r.maxRssMiB, r.peakRssMiB <= (r.maxRssMiB ?? 0))} |`,
    );
  }
  lines.push('', ...renderScriptTargets(input));
  pushSection(
    lines,
    results.filter((r) => r.memory !== undefined),
    [
      '## Where the peak memory is',
      '',
      methodology('memory'),
      '',
      '| case | RSS before the run | peak RSS | peak at s (of the run) | heap committed | heap used | external | of which ArrayBuffers |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
    ],
    (r) => {
      const m = r.memory as NonNullable<CaseResult['memory']>;
      return `| ${r.description} | ${m.baselineRss} | ${r.peakRssMiB} | ${m.seconds ?? '?'} (${r.archiverSeconds}) | ${m.heapTotal} | ${m.heapUsed} | ${m.external} | ${m.arrayBuffers} |`;
    },
  );
  const sized = results.filter((r) => r.gzipJsonlBytes !== undefined);
  pushSection(
    lines,
    sized,
    [
      '## Size (default dataset)',
      '',
      '| Node | archive (Parquet) | gzipped JSON lines of the same records | ratio | target | codec | met |',
      '|---|---:|---:|---:|---:|---|:---:|',
    ],
    (r) => {
      const gz = r.gzipJsonlBytes ?? 0;
      const ratio = Math.round((r.parquetBytes / gz) * 100) / 100;
      return (
        `| ${r.node} | ${(r.parquetBytes / MiB).toFixed(2)} MiB | ${(gz / MiB).toFixed(2)} MiB | ${ratio}× | ≤ 1× | ` +
        `${r.codec} | ${ratio <= 1 ? 'yes' : 'NO'} |`
      );
    },
  );
  for (const r of sized) {
    if (!r.sizes) continue;
    lines.push(
      '',
      `Node ${r.node} (${r.codec}): where the ${r.sizes.files} files' bytes go (compressed, from their footers; footers ${(r.sizes.footerBytes / 1024).toFixed(0)} KiB):`,
      '',
      '| column | KiB | share | encodings | codec |',
      '|---|---:|---:|---|---|',
    );
    for (const c of [...r.sizes.columns].sort((a, b) => b.bytes - a.bytes)) {
      lines.push(
        `| ${c.name} | ${(c.bytes / 1024).toFixed(0)} | ${((c.bytes / r.sizes.bytes) * 100).toFixed(1)}% | ` +
          `${c.encodings.join(', ')} | ${c.codecs.join(', ')} |`,
      );
    }
  }
  return lines;
}

/** `cold-start`: the Lambda bundle's module import and handler init. */
export function coldLines(input: ResultsInput): string[] {
  const { cold } = input;
  const lines: string[] = [];
  if (cold) {
    lines.push(
      '',
      '## Lambda cold start',
      '',
      '| Node | bundle | module import + handler init (median) | samples ms | target | met |',
      '|---|---:|---:|---|---:|:---:|',
      `| ${cold.node} | ${(cold.bundleBytes / MiB).toFixed(1)} MiB | ${cold.medianMs} ms | ${cold.samplesMs.join(', ')} | ≤ 200 ms | ${cold.medianMs <= 200 ? 'yes' : 'NO'} |`,
    );
  }
  return lines;
}

/** The report case: size and first paint of a synthetic 3-year archive's page, against their targets. */
export function reportLines(r: ReportBenchResult): string[] {
  const sizeMet = r.bytes < REPORT_TARGETS.maxBytes;
  const paintMet = r.firstPaintMs < REPORT_TARGETS.maxFirstPaintMs;
  return [
    '',
    '## HTML report, synthetic 3-year archive (report-3y)',
    '',
    `${r.days} days; model built and page rendered in ${r.renderMs} ms (median); first contentful paint in headless Chromium, samples ${r.samplesMs.join(', ')} ms.`,
    '',
    '| figure | measured | target | met |',
    '|---|---:|---:|:---:|',
    `| page size | ${(r.bytes / MiB).toFixed(2)} MiB | < 2 MiB | ${sizeMet ? 'yes' : 'NO'} |`,
    `| first paint (median) | ${r.firstPaintMs} ms | < ${REPORT_TARGETS.maxFirstPaintMs} ms | ${paintMet ? 'yes' : 'NO'} |`,
  ];
}

/**
 * Every figure at the CPU share Lambda gives the engine function (its memory ÷ 1,769 MB of a vCPU), beside
 * the same measured unconstrained: the `big-day` runs one by one, and the cases run once more at the share.
 */
export function shareLines(input: ResultsInput): string[] {
  const days = input.bigDays ?? [];
  const cases = input.results.filter((r) => r.atShare);
  if (!days.some((b) => b.pageRows !== undefined) && cases.length === 0) return [];
  const cores = `${cpus().length} cores (unconstrained)`;
  const shareOf = (b: BigDayResult) =>
    b.cpuShare === undefined
      ? b.unconstrained
        ? `${cores}: ${b.unconstrained}`
        : cores
      : `${b.cpuShare} core`;
  const lines = [
    '',
    '## At the function’s CPU share (`-share` cases)',
    '',
    methodology('cpu-share', {
      engineMemoryMiB: ENGINE_MEMORY_MIB,
      engineShare: (ENGINE_MEMORY_MIB / FULL_VCPU_MEMORY_MB).toFixed(2),
      cores: cpus().length,
    }),
    '',
    '| case | CPU | page rows | run | resumed | pages | ratio | pages/s | CPU ms a page | CPU ms a page in the walk | longest pause ms | throttled ms | load |',
    '| ---- | --- | --------: | --: | :-----: | ----: | ----: | ------: | ------------: | ------------------------: | ---------------: | -----------: | ---: |',
  ];
  for (const b of days) {
    if (b.pageRows === undefined) continue;
    b.runs.forEach((r, i) => {
      lines.push(
        `| ${b.name} | ${shareOf(b)} | ${b.pageRows} | ${i + 1} | ${r.resumed ? 'yes' : ''} | ${r.pagesThisRun} | ${r.ratio === undefined ? 'done' : r.ratio.toFixed(2)} | ${r.pagesPerSecond ?? ''} | ${r.cpuMsPerPage} | ${r.walkCpuMsPerPage ?? ''} | ${r.longestPauseMs ?? ''}${r.longestPauseAtMs === undefined ? '' : ` (at ${(r.longestPauseAtMs / 1000).toFixed(1)} s)`} | ${r.throttledMs ?? ''} | ${r.load} |`,
      );
    });
  }
  // The target on a page's work at the share: CPU ms a 100-row page while the walk ran, judged on the runs
  // the deadline cut (full-length runs); a run that finished the day is listed (marked f), not judged.
  const walkCpu = days.flatMap((b) => {
    const measured = b.runs.filter((r) => r.walkCpuMsPerPage !== undefined);
    const cut = measured.flatMap((r) => (r.ratio === undefined ? [] : [r.walkCpuMsPerPage as number]));
    return b.cpuShare === undefined || b.pageRows !== 100 || cut.length === 0 ? [] : [{ b, measured, cut }];
  });
  if (walkCpu.length) {
    lines.push(
      '',
      methodology('walk-cpu', { target: WALK_CPU_MS_A_PAGE }),
      '',
      `| case | CPU | CPU ms a 100-row page in the walk, each run | highest of the cut runs | target | met |`,
      '| ---- | --- | ------------------------------------------- | ----------------------: | -----: | :-: |',
      ...walkCpu.map(({ b, measured, cut }) => {
        const each = measured.map((r) => `${r.walkCpuMsPerPage}${r.ratio === undefined ? ' f' : ''}`);
        const highest = Math.max(...cut);
        return `| ${b.name} | ${shareOf(b)} | ${each.join(', ')} | ${highest} | ≤ ${WALK_CPU_MS_A_PAGE} | ${highest <= WALK_CPU_MS_A_PAGE ? 'yes' : 'NO'} |`;
      }),
    );
  }
  if (cases.length) {
    lines.push(
      '',
      methodology('share-cases', { pageSize: input.pageSize }),
      '',
      '| case | CPU | archiver s | bound fraction | pages/s | CPU ms a page | longest pause ms | throttled ms | script s | archiver ÷ script | unconstrained: archiver s, pages/s, CPU ms a page, longest pause ms |',
      '| ---- | --- | ---------: | -------------: | ------: | ------------: | ---------------: | -----------: | -------: | ----------------: | ------------------------------------------------------------------ |',
    );
    for (const r of cases) {
      const a = r.atShare;
      if (!a) continue;
      const cpu = r.cpu ? Math.round((r.cpu.archiverSeconds * 1000) / r.pages) : '';
      const free = `${r.archiverSeconds}, ${r.walk?.pagesPerSecond ?? ''}, ${cpu}, ${r.walk?.longestPauseMs ?? ''}`;
      lines.push(
        a.unconstrained
          ? `| ${r.name} | ${cores}: ${a.unconstrained} | | | | | | | | | ${free} |`
          : `| ${r.name} | ${a.cpuShare} core (${a.memoryMb} MB) | ${a.archiverSeconds} | ${a.boundFraction} | ${a.pagesPerSecond ?? ''} | ${a.cpuMsPerPage ?? ''} | ${a.longestPauseMs ?? ''} | ${a.throttledMs ?? ''} | ${a.scriptSeconds ?? ''} | ${a.scriptRatio === undefined ? '' : `${a.scriptRatio}×`} | ${free} |`,
      );
    }
  }
  lines.push('');
  return lines;
}

/** `big-day` and `finish-union`: measured figures only (what is extrapolated from them is said so). */
export function bigDayLines(input: ResultsInput): string[] {
  const lines = [
    '',
    '## Days bigger than one run, measured (`big-day`, `finish-union`)',
    '',
    methodology('big-day', {
      lambdaNode:
        [...new Set((input.bigDays ?? []).map((b) => b.node ?? 'not recorded'))].join(', ') || 'none run',
    }),
    '',
    '| case | rows | latency | runs | bound runs | pages | ratio of each cut run | min resumed | target | met | resumed ÷ first | CPU s a run | CPU ms a page | CPU ms a page beyond a run’s fixed CPU (fixed s) | load | max overrun ms | max kept ms | wall s | peak RSS MiB | archived once |',
    '| ---- | ---: | ------: | ---: | ---------: | ----: | --------------------- | ----------: | -----: | :-: | --------------: | ----------: | ------------: | -----------------------------------------------: | ---: | -------------: | ----------: | -----: | -----------: | :-----------: |',
  ];
  for (const b of input.bigDays ?? []) {
    const ratios = b.runs
      .flatMap((r) => (r.ratio === undefined ? [] : [`${r.ratio.toFixed(2)}${r.resumed ? ' r' : ''}`]))
      .join(', ');
    const peak = Math.max(...b.runs.map((r) => r.peakRssMiB));
    const once = b.archived.rows === b.rows && b.archived.distinct === b.rows ? 'yes' : 'no';
    const cpu = b.runs.map((r) => r.cpuSeconds ?? 0);
    const loads = b.runs.map((r) => r.load ?? 0);
    const perPage = b.runs.flatMap((r) => (r.cpuMsPerPage === undefined ? [] : [r.cpuMsPerPage]));
    const overrun = b.maxOverrunMs === undefined ? '' : String(b.maxOverrunMs);
    const kept = b.runs.flatMap((r) => (r.keptMs === undefined ? [] : [r.keptMs]));
    const span = (xs: number[]) =>
      xs.length === 0 ? '' : `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
    const minResumed = b.minResumedRatio ?? b.minCutRatio;
    const first = b.runs[0]?.ratio;
    const resumed = b.runs.flatMap((r) => (r.ratio !== undefined && r.resumed ? [r.ratio] : []));
    const vsFirst = first && resumed.length ? (median(resumed) / first).toFixed(2) : '';
    lines.push(
      `| ${b.name} | ${b.rows} | ${b.latencyMs} ms | ${b.runs.length} | ${b.boundRuns} | ${b.pages} | ${ratios} | ${minResumed.toFixed(2)} | ≥ 0.8 | ${minResumed >= 0.8 ? 'yes' : 'NO'} | ${vsFirst} | ${span(cpu)} | ${span(perPage)} | ${b.cpuFit ? `${b.cpuFit.msPerPage.toFixed(1)} (${b.cpuFit.fixedSeconds.toFixed(2)})` : ''} | ${span(loads)} | ${overrun} | ${kept.length ? Math.round(Math.max(...kept)) : ''} | ${b.seconds} | ${peak} | ${once} |`,
    );
  }
  lines.push(...settingsLines(input.bigDays ?? [], 'the archiver function'));
  if (input.finishUnion?.length) {
    lines.push(
      '',
      methodology('finish-union'),
      '',
      '| rows | ranges | peak RSS MiB | id set MiB | s |',
      '| ---: | -----: | -----------: | ---------: | -: |',
      ...input.finishUnion.map(
        (u) => `| ${u.rows} | ${u.ranges} | ${u.peakRssMiB} | ${u.idSetMiB} | ${u.seconds} |`,
      ),
      '',
      unionCapacityLine(input.finishUnion),
    );
  }
  lines.push('');
  return lines;
}

/** The largest day one finish step held in the engine's memory, measured, and the engine's cap beside it. */
function unionCapacityLine(results: readonly UnionMemory[]): string {
  const { held, past } = largestWithin(results, ENGINE_MEMORY_MIB);
  const m = (n: number) => `${Number((n / 1e6).toFixed(2))}M`;
  const cap = `The finish step fails a day of more than ${m(FINISH_MAX_IDS)} ids with \`DAY_TOO_BIG\` before its union (\`FINISH_MAX_IDS\`), so the step and the orchestration's other days go on.`;
  if (!held) return `No size measured peaked within the engine's ${ENGINE_MEMORY_MIB} MiB. ${cap}`;
  return (
    `Largest day measured within the engine's ${ENGINE_MEMORY_MIB} MiB (\`ENGINE_MEMORY_MIB\`): **${m(held.rows)} ids**, peak ${held.peakRssMiB} MiB` +
    (past
      ? `; ${m(past.rows)} ids peaked at ${past.peakRssMiB} MiB, past it (the id set grows by half when 70% full). `
      : `; no size measured went past it. `) +
    `The process started at ${held.baselineRssMiB} MiB; a Lambda starts higher (its runtime and the bundle), which the headroom left must hold. ${cap}`
  );
}

/**
 * What each case ran with: the stack's settings, read from the synthesized template, and what the bench set
 * instead; cases measured before the settings were recorded are named as not re-measured.
 */
function settingsLines(
  cases: readonly { name: string; settings?: RecordedSettings; overrides?: SettingOverrides }[],
  of: string,
): string[] {
  const groups = new Map<string, string[]>();
  const stale: string[] = [];
  for (const c of cases) {
    if (!c.settings) {
      stale.push(c.name);
      continue;
    }
    const text = `${settingsText(c.settings)}${overridesText(c.overrides)}`;
    groups.set(text, [...(groups.get(text) ?? []), c.name]);
  }
  return [
    ...[...groups].flatMap(([text, names]) => [
      '',
      `${names.join(', ')}: with the stack's settings for ${of} (read from the synthesized template, \`bench/shippedSettings.ts\`): ${text}.`,
    ]),
    ...(stale.length
      ? [
          '',
          `${stale.join(', ')}: not re-measured with the stack's settings (measured before they were read from the synthesized template, with the page size, page cap and pages at once the bench set).`,
        ]
      : []),
  ];
}

/** `fanout-local`: big days through the synthesized fan-out under aws-local-stepfunctions, measured. */
export function fanoutLocalLines(cases: readonly FanoutLocalResult[]): string[] {
  return [
    '',
    '## A big day through the fan-out, measured locally (`fanout-local`)',
    '',
    methodology('fanout-local'),
    '',
    '| case | rows | latency | concurrency | range pages | executions | item attempts (most at once) | retried | wall s | map s | requests | pages (the window’s) | bound pages | pages ÷ bound | map ratio | CPU s | peak RSS MiB | load | archived once |',
    '| ---- | ---: | ------: | ----------: | ----------: | ---------: | ---------------------------: | ------- | -----: | ----: | -------: | ---------------: | ----------: | ------------: | --------: | ----: | -----------: | ---: | :-----------: |',
    ...cases.map((c) => {
      const once = c.archived.rows === c.rows && c.archived.distinct === c.rows && c.failedDays === 0;
      const retried = (c.attempts ?? []).flatMap((a) => (a.error ? [`${a.id}: ${a.error}`] : [])).join(', ');
      const share = c.cpuShare === undefined ? '' : ` (in a quota of ${c.cpuShare} core)`;
      return `| ${c.name}${share} | ${c.rows} | ${c.latencyMs} ms | ${c.concurrency} | ${c.rangePages} | ${c.executions} | ${c.items} (${c.itemsInFlightMax}) | ${c.attempts ? retried || 'none' : ''} | ${c.wallSeconds} | ${c.mapSeconds} | ${c.requests} | ${c.pages}${c.windowPages === undefined ? '' : ` (${c.windowPages})`} | ${c.boundPages} | ${c.ratio.toFixed(2)} | ${c.mapRatio.toFixed(2)} | ${c.cpuSeconds} | ${c.peakRssMiB} | ${c.load[0]}–${c.load[1]} | ${once ? 'yes' : 'NO'} |`;
    }),
    ...settingsLines(cases, 'the fan-out'),
  ];
}

/** `fanout-2M`: the wall time of a 2M-session day by map concurrency, from the measured work of a page. */
export function fanoutLines(f: FanoutFigures): string[] {
  const m = f.measured;
  return [
    '',
    '## A 2M-session day on AWS, extrapolated (fan-out, `fanout-2M`)',
    '',
    `Measured locally: ${m.sessions} sessions in ${m.pages} pages of 100, walked in ${m.items} map items (days, and page ranges of a day past ${f.settings?.fanout.machine?.rangePages ?? 50} pages) in ${m.walkSeconds} s ` +
      `(${(f.pageWorkSeconds * 1000).toFixed(2)} ms of work a page), finished (ids unioned, digest) in ${m.finishSeconds} s${f.load ? `, at a load average of ${f.load[0]} → ${f.load[1]} on 2 cores` : ''}. ` +
      `Extrapolated: at 150 ms a request and ${f.settings?.fanout.pageConcurrency ?? 2} requests in flight per worker, a worker takes ${(f.workerSecondsPerPage * 1000).toFixed(0)} ms a page, and a cold start per item is added.`,
    '',
    '| map concurrency | wall time of a 2M-session day |',
    '|---:|---:|',
    ...f.wallMinutes.map((w) => `| ${w.concurrency} | ${w.minutes} min |`),
    '',
    `Extrapolated largest day (a model, not measured on AWS): ${f.largestDayOneLambda.toLocaleString('en-US')} sessions in one Lambda (${oneRunWork(f)} of work); ` +
      `by time alone, ${f.largestDayFanoutByTime.toLocaleString('en-US')} sessions in one orchestration at the stack's ${f.concurrency} workers (its ${orchestrationHours(f)} timeout). ` +
      (f.pageCapSessions
        ? `The page cap bounds a day's pass at ${f.pageCapSessions.fanout.toLocaleString('en-US')} sessions (${f.settings?.fanout.pageCap} pages of ${f.settings?.fanout.pageRows} rows), and the finish step's memory bounds a fan-out day as low: that bound is measured (\`finish-union\`, above).`
        : "The finish step's memory bounds a fan-out day far lower: that bound is measured (`finish-union`, above)."),
    '',
    f.settings
      ? `With the stack's settings (read from the synthesized template, \`bench/shippedSettings.ts\`): one run, the archiver's: ${settingsText(f.settings.oneRun)}; the fan-out's: ${settingsText(f.settings.fanout)}${overridesText(f.overrides)}. Work a page and the finish step's divided by the CPU share the memory buys (${f.cpuShare} of a core).`
      : "fanout-2M: not re-measured with the stack's settings (measured before they were read from the synthesized template: a model of 14 min of work, 2 requests at once, a 100,000-page cap, ranges of 50 pages and a 5 h timeout, set by the bench).",
  ];
}

/** The one run's work in the model: its timeout less its deadline reserve ("14 min" when measured before settings). */
function oneRunWork(f: FanoutFigures): string {
  const s = f.settings?.oneRun;
  return s ? `${Number(((s.timeoutSeconds - s.deadlineReserveMs / 1000) / 60).toFixed(2))} min` : '14 min';
}

function orchestrationHours(f: FanoutFigures): string {
  const s = f.settings?.fanout.machine?.timeoutSeconds;
  return s ? `${Number((s / 3600).toFixed(2))} h` : '5 h';
}

/** The "archive age" section: one steady-state run on a 60-day and an old archive, per store. */
export function ageLines(age: ArchiveAgeResult): string[] {
  const years = (age.oldDays / 365).toFixed(age.oldDays % 365 === 0 ? 0 : 1);
  const lines = [
    '',
    '## Archive age',
    '',
    `One steady-state run (the next day's, ${age.runs === 1 ? 'one run' : `median of ${age.runs} days' runs, peak RSS the highest`}, ` +
      'each in a fresh process, with the local state on disk) on an archive ' +
      `${age.youngDays} days old and on one ${age.oldDays} days (${years} years) old, generated as the stack would ` +
      'leave it (a history file, 24 active files and a digest a day; `bench/archiveAge.ts`). Requests and bytes ' +
      'read are counted at the object store. Target: each figure of the old archive ≤ ' +
      `${age.maxRatio}× the young one's.`,
    '',
    `| store | figure | ${age.youngDays} days | ${age.oldDays} days | ratio | target | met |`,
    '|---|---|---:|---:|---:|---:|:---:|',
  ];
  for (const r of age.stores) {
    const ratios = ageRatios(r);
    const row = (name: string, key: keyof typeof ratios) =>
      `| ${r.store === 's3' ? 'S3 (s3rver)' : 'file'} | ${name} | ${r.young[key]} | ${r.old[key]} | ${ratios[key]}× | ≤ ${age.maxRatio}× | ${ratios[key] <= age.maxRatio ? 'yes' : 'NO'} |`;
    lines.push(
      row('store requests', 'requests'),
      row('bytes read', 'bytesRead'),
      row('wall s', 'seconds'),
      row('peak RSS MiB', 'peakRssMiB'),
    );
  }
  lines.push(
    '',
    `| store | old archive files | verify s (whole archive) | verify peak RSS MiB | verify ok |`,
    '|---|---:|---:|---:|:---:|',
  );
  for (const r of age.stores) {
    lines.push(
      `| ${r.store === 's3' ? 'S3 (s3rver)' : 'file'} | ${r.verify.files} | ${r.verify.seconds} | ${r.verify.peakRssMiB} | ${r.verify.ok ? 'yes' : 'NO'} |`,
    );
  }
  const weekly = age.stores.filter((r) => r.weekly !== undefined);
  if (weekly.length > 0) {
    lines.push(
      '',
      methodology('weekly-verify', { weeklyRuns: age.weeklyRuns ?? 1 }),
      '',
      `| store | figure | ${age.youngDays} days | ${age.oldDays} days | ratio | target | met |`,
      '|---|---|---:|---:|---:|---:|:---:|',
    );
    for (const r of weekly) {
      const ratios = ageRatios(r, 'weekly');
      const w = r.weekly as NonNullable<typeof r.weekly>;
      const name = r.store === 's3' ? 'S3 (s3rver)' : 'file';
      for (const [label, key] of [
        ['weekly verify requests', 'requests'],
        ['weekly verify bytes read', 'bytesRead'],
        ['weekly verify wall s', 'seconds'],
        ['weekly verify peak RSS MiB', 'peakRssMiB'],
      ] as const) {
        lines.push(
          `| ${name} | ${label} | ${w.young[key]} | ${w.old[key]} | ${ratios[key]}× | ≤ ${age.maxRatio}× | ${ratios[key] <= age.maxRatio ? 'yes' : 'NO'} |`,
        );
      }
      if (r.judge) {
        const objects = (j: NonNullable<typeof r.judge>['young']) =>
          j.judged.reduce((n, v) => n + v.objects, 0);
        lines.push(
          `| ${name} | judging reports: objects / bytes read | ${objects(r.judge.young)} / ${r.judge.young.bytesRead} | ${objects(r.judge.old)} / ${r.judge.old.bytesRead} | | | |`,
        );
      }
    }
  }
  return lines;
}

/** Pushes a blank line, the heading lines, then one line per item; nothing at all when there are no items. */
function pushSection<T>(
  lines: string[],
  items: readonly T[],
  heading: readonly string[],
  row: (item: T) => string,
): void {
  if (items.length === 0) return;
  lines.push('', ...heading, ...items.map(row));
}
