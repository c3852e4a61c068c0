import { describe, expect, it } from 'vitest';
import { costFigures, readFirstWeekUsage } from '../../bench/cost/costFigures.ts';
import { LIST_PRICES } from '../../bench/cost/listPrices.ts';
import {
  COST_SECTION,
  costTableRows,
  monthlyCost,
  priceOfCall,
  type ScaleFigures,
  steadyDay,
} from '../../bench/cost/monthlyCost.ts';
import type { WeekDay, WeekUsage } from '../../devkit/firstWeek/weekUsage.ts';
import { section } from '../docs/markdownSection.ts';
import { tableRowsFrom } from '../docs/markdownTable.ts';

const figures: ScaleFigures = {
  pageRows: 100,
  secondsPerPage: 0.1,
  bytesPerRecord: 100,
  rangePages: 50,
  ruleLookbackDays: [2],
  resources: { alarms: 0, dashboards: 0, secrets: 0, kmsKeys: 0 },
};

/** A week of 20 sessions a day: one archive run a day (2 walk invocations, 200 records fetched), nothing else. */
function week(overrides: Partial<WeekDay> = {}, backfillGbSeconds = 1000): WeekUsage {
  const day = (i: number): WeekDay => ({
    day: `2026-11-0${i + 2}`,
    functions: {
      Walker: {
        invocations: 2,
        gbSeconds: i === 0 ? backfillGbSeconds : 10,
        awsCalls: { 'S3:PutObject': 4, 'DynamoDB:GetItem': 10 },
        logBytes: 2000,
      },
    },
    stateMachines: { Fanout: { executions: 1, transitions: 6 } },
    recordsFetched: 200,
    ...overrides,
  });
  return {
    start: '2026-11-02T00:00:00.000Z',
    sessionsPerDay: 20,
    pageRows: 10,
    functions: { Walker: { memoryMb: 1024, architecture: 'arm64' } },
    stateMachineFunctions: { Fanout: 'Walker' },
    days: [0, 1, 2, 3].map(day),
    fullVerify: { day: '2026-11-06', functions: {}, stateMachines: {}, recordsFetched: 0 },
    customMetrics: [],
    batchOperations: { jobs: 0, objects: 0 },
    findings: 0,
  };
}
const line = (lines: { name: string; usd: number }[], name: string) =>
  lines.find((l) => l.name.startsWith(name))?.usd ?? Number.NaN;

describe('the monthly cost model', () => {
  it("reads the steady days only: the first day's backfill is not a month's", () => {
    expect(steadyDay(week({}, 1000)).functions.Walker?.gbSeconds).toBe(10);
    const small = monthlyCost(week({}, 10), figures, 20);
    const backfilled = monthlyCost(week({}, 99_999), figures, 20);
    expect(line(backfilled, 'Lambda compute: Walker')).toBe(line(small, 'Lambda compute: Walker'));
  });

  it("prices the week's team at what it measured: 30 days of its steady day", () => {
    const lines = monthlyCost(week(), figures, 20);
    expect(line(lines, 'Lambda compute: Walker')).toBeCloseTo(
      10 * 30 * LIST_PRICES.lambdaGbSecondArm64.usd,
      12,
    );
    expect(line(lines, 'Lambda requests')).toBeCloseTo(2 * 30 * LIST_PRICES.lambdaRequest.usd, 12);
    expect(line(lines, 'S3 requests')).toBeCloseTo(4 * 30 * LIST_PRICES.s3Write.usd, 12);
    expect(line(lines, 'DynamoDB requests')).toBeCloseTo(10 * 30 * LIST_PRICES.dynamoRead.usd, 12);
    expect(line(lines, 'Step Functions')).toBeCloseTo(6 * 30 * LIST_PRICES.stateTransition.usd, 12);
    const total = lines.at(-1);
    expect(total?.name).toBe('Total');
    expect(total?.usd).toBeCloseTo(
      lines.slice(0, -1).reduce((n, l) => n + l.usd, 0),
      12,
    );
  });

  it('grows the walks with the sessions: pages at the measured fetches a session, in items of rangePages', () => {
    const at = (n: number) => monthlyCost(week(), figures, n);
    // 10 fetches a session; 1,000,020 sessions a day is 1,000,000 more than the week's 20: 100,000 pages a
    // day at 100 rows, 0.1 s each at 1 GB, in 2,000 items of 50 pages.
    const extraPages = (1_000_000 * 10) / 100;
    const extraItems = extraPages / 50;
    const grown = at(1_000_020);
    const base = at(20);
    expect(line(grown, 'Lambda compute: Walker') - line(base, 'Lambda compute: Walker')).toBeCloseTo(
      extraPages * 0.1 * 30 * LIST_PRICES.lambdaGbSecondArm64.usd,
      9,
    );
    expect(line(grown, 'Lambda requests') - line(base, 'Lambda requests')).toBeCloseTo(
      extraItems * 30 * LIST_PRICES.lambdaRequest.usd,
      9,
    );
    // Each item makes the calls and transitions one walking invocation made in the week (half a day's).
    expect(line(grown, 'S3 requests') - line(base, 'S3 requests')).toBeCloseTo(
      extraItems * 2 * 30 * LIST_PRICES.s3Write.usd,
      9,
    );
    expect(line(grown, 'Step Functions') - line(base, 'Step Functions')).toBeCloseTo(
      extraItems * 3 * 30 * LIST_PRICES.stateTransition.usd,
      9,
    );
    // Fewer fetches a session in the week: fewer pages at every size.
    expect(
      line(monthlyCost(week({ recordsFetched: 100 }), figures, 1_000_020), 'Lambda compute'),
    ).toBeLessThan(line(grown, 'Lambda compute'));
  });

  it('stores a year of Parquet and scans the rules’ lookbacks, at least 10 MB a query', () => {
    const withQueries = week({
      functions: {
        Walker: {
          invocations: 2,
          gbSeconds: 10,
          awsCalls: { 'Athena:StartQueryExecution': 240 },
          logBytes: 0,
        },
      },
    });
    const small = monthlyCost(withQueries, figures, 20);
    // 2 days × 20 sessions × 100 bytes is far under the 10 MB Athena bills at least.
    expect(line(small, 'Athena')).toBeCloseTo((240 * 30 * 10 * 1024 ** 2 * 5) / 1024 ** 4, 9);
    const big = monthlyCost(withQueries, figures, 1_000_000);
    expect(line(big, 'Athena')).toBeCloseTo((240 * 30 * 2 * 1_000_000 * 100 * 5) / 1024 ** 4, 9);
    expect(line(big, 'S3 storage')).toBeCloseTo(((1_000_000 * 100 * 365) / 1024 ** 3) * 0.023, 9);
  });

  it('refuses a call it has no price for, so a new call of a function cannot go uncosted', () => {
    expect(priceOfCall('S3:GetObject')).toBe('s3Read');
    expect(priceOfCall('DynamoDB:TransactWriteItems')).toBe('dynamoWrite');
    expect(priceOfCall('STS:AssumeRole')).toBeNull();
    expect(() => priceOfCall('Kinesis:PutRecord')).toThrow(/Kinesis:PutRecord: the cost model has no price/);
    expect(() =>
      monthlyCost(
        week({
          functions: {
            Walker: { invocations: 1, gbSeconds: 1, awsCalls: { 'SQS:SendMessage': 1 }, logBytes: 0 },
          },
        }),
        figures,
        20,
      ),
    ).toThrow(/SQS:SendMessage/);
  });
});

describe('the cost table of docs/operations.md', () => {
  it('is the model of the committed first week, at the shipped settings and the measured bench figures', () => {
    const usage = readFirstWeekUsage();
    // Every call the week made has a price (or is known to be free).
    for (const d of usage.days)
      for (const f of Object.values(d.functions)) for (const c of Object.keys(f.awsCalls)) priceOfCall(c);
    const page = section('docs/operations.md', COST_SECTION);
    expect(tableRowsFrom(page, 0)).toEqual(costTableRows(usage, costFigures()).slice(1));
  }, 240_000);
});
