import { describe, expect, it } from 'vitest';
import type { BigDayResult, BigDayRun } from '../../bench/bigDay.ts';
import type { CaseResult } from '../../bench/caseResult.ts';
import type { FanoutLocalResult } from '../../bench/fanoutLocal.ts';
import { type ResultsInput, renderResults } from '../../bench/renderResults.ts';

const at = new Date('2026-11-23T16:24:07Z');

function caseResult(name: string, measuredAt?: string): CaseResult {
  return {
    bench: 'case',
    name,
    description: name,
    records: 100_000,
    pages: 51,
    boundSeconds: 0.3,
    boundBasis: 'measured',
    measuredBoundSeconds: 0.3,
    archiverSeconds: 4.2,
    ratio: 14,
    peakRssMiB: 171,
    ...(measuredAt === undefined ? {} : { measuredAt }),
    parquetBytes: 8_000_000,
  } as CaseResult;
}

function input(results: CaseResult[], coldAt?: string): ResultsInput {
  return {
    quick: false,
    node: '20.20.2',
    concurrency: 2,
    pageSize: 2000,
    results,
    cold: {
      node: '24.21.0',
      bundleBytes: 1_295_955,
      samplesMs: [135, 155, 205],
      medianMs: 155,
      ...(coldAt === undefined ? {} : { measuredAt: coldAt }),
    },
    at,
    load: [1, 2],
  };
}

function fanoutLocalCase(archived: { rows: number; distinct: number }): FanoutLocalResult {
  return {
    bench: 'fanout-local',
    name: 'fanout-local-30k-75ms',
    rows: 30_181,
    latencyMs: 75,
    concurrency: 4,
    rangePages: 75,
    executions: 1,
    items: 6,
    attempts: [{ id: '2026-09-30-p1-r0' }, { id: '2026-09-30-p1-r75', error: 'Archiver.CONFLICT' }],
    itemsInFlightMax: 4,
    wallSeconds: 33.52,
    requests: 381,
    pages: 381,
    windowPages: 302,
    boundPages: 1787.72,
    ratio: 0.21,
    mapSeconds: 30.17,
    mapRatio: 0.24,
    peakRssMiB: 330.34,
    cpuSeconds: 10.81,
    load: [9.05, 11.44],
    archived,
    failedDays: 0,
    seconds: 120,
  };
}

describe('renderResults', () => {
  it.each([
    [{ rows: 30_181, distinct: 30_181 }, 'yes'],
    [{ rows: 30_182, distinct: 30_181 }, 'NO'],
    [{ rows: 30_180, distinct: 30_180 }, 'NO'],
    [{ rows: 30_181, distinct: 30_180 }, 'NO'],
  ])(
    'fanout-local: a row archived twice or missing says NO (%o: %s), with the retried attempts and the window’s pages',
    (archived, once) => {
      const text = renderResults({ ...input([]), fanoutLocal: [fanoutLocalCase(archived)] });
      const row = text.split('\n').find((l) => l.startsWith('| fanout-local-30k-75ms |')) as string;
      const cells = row.split('|').map((c) => c.trim());
      expect(cells.at(-2)).toBe(once);
      expect(row).toContain('| 2026-09-30-p1-r75: Archiver.CONFLICT |');
      expect(row).toContain('| 381 (302) |');
      expect(row).toContain('| 0.21 | 0.24 |');
    },
  );

  it('says which figures come from which run when --only kept earlier ones', () => {
    const text = renderResults(
      input(
        [
          caseResult('day-100k', '2026-11-23T15:43:37.000Z'),
          caseResult('day-1M', '2026-11-23T15:43:37.000Z'),
        ],
        '2026-11-23T16:24:07.000Z',
      ),
    );
    expect(text).toContain(
      'Figures from 2 runs (the load average above is the last one\u2019s): 2026-11-23 15:43 UTC: day-100k, day-1M; 2026-11-23 16:24 UTC: cold-start.',
    );
  });

  it('adds no such line when every figure is from the one run', () => {
    const now = at.toISOString();
    expect(renderResults(input([caseResult('day-100k', now)], now))).not.toContain('Figures from');
    // Results without a time of their own belong to the run that renders them.
    expect(renderResults(input([caseResult('day-100k')]))).not.toContain('Figures from');
  });
});

describe('renderResults: archive age', () => {
  it('shows each figure at both ages with its ratio, and says NO for a figure over the target', () => {
    const run = (seconds: number) => ({
      requests: 33,
      byMethod: {},
      bytesRead: 1000,
      seconds,
      peakRssMiB: 130,
    });
    const md = renderResults({
      ...input([caseResult('day-100k')]),
      age: {
        youngDays: 60,
        oldDays: 1095,
        runs: 3,
        maxRatio: 1.1,
        stores: [
          {
            store: 'file',
            generated: { days: 1035, files: 25875, digests: 1035 },
            young: run(2),
            old: run(3),
            verify: { seconds: 60, peakRssMiB: 190, ok: true, files: 25937 },
          },
        ],
      },
    });
    expect(md).toContain('## Archive age');
    expect(md).toContain('| file | store requests | 33 | 33 | 1× | ≤ 1.1× | yes |');
    expect(md).toContain('| file | wall s | 2 | 3 | 1.5× | ≤ 1.1× | NO |');
    expect(md).toContain('| file | 25937 | 60 | 190 | yes |');
  });
});

describe('renderResults: the rescan', () => {
  it('reports a rescan against the first walk, and says how to measure it when it was not', () => {
    const md = renderResults({
      ...input([caseResult('day-100k')]),
      rescan: {
        records: 100_000,
        runs: 3,
        firstSeconds: 2.5,
        firstCpuMicrosPerRecord: 42.18,
        rescanSeconds: 1.29,
        rescanCpuMicrosPerRecord: 16.03,
        rescanNewRecords: 0,
      },
    });
    expect(md).toContain(
      "| a rescan's CPU a record against the first walk's (one 100000-record day asked for twice) | first walk 2.5 s, **42.18 µs** a record; rescan 1.29 s, **16.03 µs** a record, 0 records written (median of 3) | reported |",
    );
    expect(renderResults(input([caseResult('day-100k')]))).toContain(
      "| a rescan's CPU a record | not measured (`--only=rescan`) |  |",
    );
  });
});

describe('renderResults: the latency floor', () => {
  const latencyCase = (ideal?: CaseResult['ideal']): CaseResult => ({
    ...caseResult('day-100k-150ms'),
    boundSeconds: 3.75,
    boundBasis: 'latency',
    archiverSeconds: 4.44,
    ratio: 1.18,
    ...(ideal ? { ideal } : {}),
  });

  it('puts the floor beside the figure, and says when the target is under it', () => {
    const md = renderResults(
      input([latencyCase({ seconds: 4.22, ratio: 1.13, requests: 51, archiverRequests: 51 })]),
    );
    expect(md).toContain(
      "| ≤ 1.1× the latency bound at 150 ms a request (100k day) | 4.44 s against 3.75 s: **1.18×**; the floor, the walk's 51 requests fetched and parsed with nothing else, every one known ahead: 4.22 s, **1.13×**, over the target itself (the archiver made 51) | NO |",
    );
    // A floor under the target is reported without the remark.
    const under = renderResults(
      input([latencyCase({ seconds: 4.05, ratio: 1.08, requests: 51, archiverRequests: 51 })]),
    );
    expect(under).toContain('4.05 s, **1.08×** (the archiver made 51) | NO |');
  });

  it('reports no floor for results measured before there was one', () => {
    expect(renderResults(input([latencyCase()]))).toContain(
      '| ≤ 1.1× the latency bound at 150 ms a request (100k day) | 4.44 s against 3.75 s: **1.18×** | NO |',
    );
  });
});

describe('renderResults: the stage costs', () => {
  it('puts the contract\u2019s fixed share against the 8 µs, and what is left for the rest', () => {
    const md = renderResults({
      ...input([caseResult('day-1M')]),
      stages: {
        records: 294_647,
        rounds: 5,
        node: '20.20.2',
        us: { page: 1.97, check: 1.5, keys: 7.25, row: 5.28, sha256: 1.46, encode: 8.66, gzip: 2.38 },
      },
    });
    expect(md).toContain(
      "| CPU beyond the bound, each stage of a record's work alone (294647 records, best of 5, Node 20.20.2) | parse 1.97 µs (the bound's); check 1.5; keying 7.25; row 5.28 (the draft a walk hands over); encoding 8.66 (each session_id derived there). Fixed by the contract: both ids' SHA-256 1.46 + GZIP 2.38 = **3.84 µs**, leaving **4.16 µs** of the 8 for this code's own 18.85 µs | reported |",
    );
    expect(renderResults(input([caseResult('day-1M')]))).toContain(
      "| each stage of a record's work alone | not measured (`--only=stage-costs`) |  |",
    );
  });
});

describe('renderResults: the script with the archive ids', () => {
  const script = (seconds: number, idsChecked?: number) => ({
    seconds,
    fetchSeconds: 1,
    duckdbSeconds: seconds - 1,
    parquetBytes: 1,
    peakRssMiB: 1,
    ratio: Math.round((4.2 / seconds) * 100) / 100,
    ...(idsChecked === undefined ? {} : { idsChecked }),
  });

  it('reports each script case against the script that also computes the ids, with the ids checked', () => {
    const md = renderResults(
      input([
        {
          ...caseResult('backfill-1M'),
          script: { ...script(1.4), maxRatio: 1.5 },
          scriptWithIds: script(2.1, 2000),
        },
        { ...caseResult('day-1M'), script: script(1.2), scriptWithIds: script(2.4, 1999) },
      ]),
    );
    expect(md).toContain(
      "| (report) 1M backfill against the script that also gives every row the archive's two ids | the script with ids 2.1 s (fetch 1 s + DuckDB 1.1 s), 1.5× the script; the archiver **2×** it; ids of 2000 rows checked equal to the archiver's | reported |",
    );
    expect(md).toContain(
      'the script with ids 2.4 s (fetch 1 s + DuckDB 1.4 s), 2× the script; the archiver **1.75×** it; ids of 1999 rows',
    );
    // A case measured without the ids script (older results) has no such row.
    expect(md).not.toContain('(report) 100k day against the script that also');
    // Nor, without DuckDB's CPU, a figure for it.
    expect(md).not.toContain("DuckDB's CPU");
  });

  it("reports what the ids alone cost DuckDB's CPU a record: its CPU with them, less without", () => {
    const records = caseResult('backfill-1M').records;
    const md = renderResults(
      input([
        {
          ...caseResult('backfill-1M'),
          script: { ...script(1.4), maxRatio: 1.5, duckdbCpuSeconds: 2 },
          scriptWithIds: { ...script(2.1, 2000), duckdbCpuSeconds: 2 + records * 7.5e-6 },
        },
      ]),
    );
    expect(md).toMatch(
      /DuckDB's CPU [\d.]+ s against the script's 2 s: the ids alone cost it \*\*7\.5 µs\*\* a record \| reported \|/,
    );
  });
});

describe('renderResults: Node 24 cases', () => {
  it('judges the memory target on Node 24 when measured, and says nothing of it when not', () => {
    const node24 = {
      ...caseResult('day-1M-node24'),
      description: 'one 1M-record day, Node 24',
      peakRssMiB: 281,
    };
    const md = renderResults(input([caseResult('day-1M'), caseResult('backfill-1M'), node24]));
    expect(md).toMatch(/\| peak RSS ≤ 256 MiB, one 1M-record day, Node 24 \| \*\*281 MiB\*\* \| NO \|/);
    expect(md).toMatch(/\| peak RSS ≤ 256 MiB, day-1M \| \*\*171 MiB\*\* \| yes \|/);
    expect(renderResults(input([caseResult('day-1M'), caseResult('backfill-1M')]))).not.toContain(
      'Node 24 |',
    );
  });
});

describe('renderResults at the function’s CPU share', () => {
  const run = (over: Partial<BigDayRun>): BigDayRun => ({
    seconds: 6,
    pagesThisRun: 200,
    boundPages: 275,
    ratio: 0.73,
    resumed: true,
    cpuSeconds: 1.6,
    cpuMsPerPage: 8,
    walkCpuMsPerPage: 5.4,
    pagesPerSecond: 36.4,
    longestPauseMs: 140,
    longestPauseAtMs: 900,
    throttledMs: 310,
    overrunMs: -200,
    keptMs: 500,
    load: 1.2,
    interrupted: true,
    complete: false,
    newRecords: 20_000,
    peakRssMiB: 150,
    ...over,
  });
  const day = (name: string, cpuShare?: number): BigDayResult => ({
    bench: 'big-day',
    name,
    rows: 30_000,
    latencyMs: 40,
    pageRows: 100,
    ...(cpuShare === undefined ? {} : { cpuShare }),
    maxRunMs: 6000,
    reserveMs: 500,
    runs: [run({ resumed: false }), run({})],
    boundRuns: 2,
    pages: 400,
    minCutRatio: 0.73,
    minResumedRatio: 0.73,
    maxOverrunMs: -200,
    archived: { rows: 30_000, distinct: 30_000 },
    seconds: 14,
  });

  it('gives every run of a big day with the CPU it ran at, its pages a second, its CPU a page in the walk and its longest pause', () => {
    const text = renderResults({
      ...input([]),
      bigDays: [day('big-day-30k-40ms'), day('big-day-30k-40ms-share', 0.58)],
    });
    const rows = text.split('\n').filter((l) => l.startsWith('| big-day-30k-40ms-share |'));
    const cells = (rows.find((l) => l.includes('| 0.58 core |') && l.includes('| yes |')) as string)
      .split('|')
      .map((c) => c.trim());
    expect(cells.slice(2, 14)).toEqual([
      '0.58 core',
      '100',
      '2',
      'yes',
      '200',
      '0.73',
      '36.4',
      '8',
      '5.4',
      '140 (at 0.9 s)',
      '310',
      '1.2',
    ]);
    expect(text).toContain('| big-day-30k-40ms | 2 cores (unconstrained) |');
    // The target on a page's work at the share, from every run's CPU in the walk; the unconstrained twin has none.
    expect(text).toContain('| big-day-30k-40ms-share | 0.58 core | 5.4, 5.4 | 5.4 | ≤ 8 | yes |');
    const slow = renderResults({
      ...input([]),
      bigDays: [{ ...day('big-day-30k-40ms-share', 0.58), runs: [run({ walkCpuMsPerPage: 8.2 }), run({})] }],
    });
    expect(slow).toContain('| big-day-30k-40ms-share | 0.58 core | 8.2, 5.4 | 8.2 | ≤ 8 | NO |');
    // A run that finished the day is listed, marked, and not judged.
    const finished = renderResults({
      ...input([]),
      bigDays: [
        {
          ...day('big-day-30k-40ms-share', 0.58),
          runs: [run({}), (({ ratio: _, ...r }) => r)(run({ walkCpuMsPerPage: 9.1, complete: true }))],
        },
      ],
    });
    expect(finished).toContain('| big-day-30k-40ms-share | 0.58 core | 5.4, 9.1 f | 5.4 | ≤ 8 | yes |');
    expect(text).not.toContain('| big-day-30k-40ms | 2 cores (unconstrained) | 5.4');
  });

  it('gives a case run at the share beside its unconstrained figures', () => {
    const c = {
      ...caseResult('backfill-1M'),
      walk: { pagesPerSecond: 120, longestPauseMs: 40 },
      atShare: {
        cpuShare: 0.58,
        memoryMb: 1024,
        archiverSeconds: 9.1,
        boundFraction: 0.03,
        pagesPerSecond: 5.6,
        cpuMsPerPage: 97,
        longestPauseMs: 310,
        throttledMs: 3000,
        scriptSeconds: 4,
        scriptRatio: 2.28,
      },
    } as CaseResult;
    const row = renderResults(input([c]))
      .split('\n')
      .find((l) => l.startsWith('| backfill-1M | 0.58 core')) as string;
    expect(row.split('|').map((x) => x.trim())).toContain('2.28×');
    expect(row).toContain('| 4.2, 120, , 40 |');
  });
});
