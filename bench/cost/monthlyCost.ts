import type { FunctionDay, WeekDay, WeekUsage } from '../../devkit/firstWeek/weekUsage.ts';
import { LIST_PRICES, type PriceName } from './listPrices.ts';

/**
 * What the model needs besides the week: figures the bench measured at sizes the week cannot reach, and what
 * the shipped stack is (each read from its source by `costFigures`).
 */
export interface ScaleFigures {
  /** Rows on one page of the real API (the server's cap on the asked page size, as the big-day benches ran). */
  pageRows: number;
  /** Billed seconds of a walk's function per page (bench: a worker at 150 ms a request, two in flight). */
  secondsPerPage: number;
  /** Parquet bytes per archived record (bench: the 60-day backfill's files over its records). */
  bytesPerRecord: number;
  /** Pages one map item of the fan-out walks (the stack's `fanoutRangePages`). */
  rangePages: number;
  /** Each detection rule's lookback, in days. */
  ruleLookbackDays: number[];
  /** Resources that bill by the month, counted in the synthesized template. */
  resources: { alarms: number; dashboards: number; secrets: number; kmsKeys: number };
}

/** One line of the bill: what it is, and its US dollars a month. */
export interface CostLine {
  name: string;
  usd: number;
}

const DAYS_A_MONTH = 30;
const GB = 1024 ** 3;
const TB = 1024 ** 4;
/** Athena bills at least this much a query. */
const ATHENA_LEAST_BYTES = 10 * 1024 ** 2;
/** Batch Operations' checksum jobs: one a week, from the second week on (the first records a baseline). */
const BATCH_JOBS_A_MONTH = DAYS_A_MONTH / 7;

/** Which list price one AWS call bills at (`Service:Action`), or `null` for calls that cost nothing. */
export function priceOfCall(call: string): PriceName | null {
  const [service, action = ''] = call.split(':');
  switch (service) {
    case 'S3':
      if (/^(Put|Copy|List|CreateMultipart|UploadPart|CompleteMultipart|Restore)/.test(action))
        return 's3Write';
      if (/^(Get|Head|Select)/.test(action)) return 's3Read';
      if (/^(Delete|AbortMultipart)/.test(action)) return null;
      break;
    case 'DynamoDB':
      if (/^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(action)) return 'dynamoWrite';
      if (/^(Get|Query|Scan|BatchGet|TransactGet|Describe)/.test(action))
        return action.startsWith('Describe') ? null : 'dynamoRead';
      break;
    case 'SecretsManager':
      return 'secretsApi';
    case 'KMS':
      return 'kmsRequest';
    case 'SNS':
      if (action === 'Publish') return 'snsPublish';
      break;
    case 'EventBridge':
      if (action === 'PutEvents') return 'eventBridgeEvent';
      break;
    case 'Athena':
      // The scan is billed by the bytes each query reads (see `monthlyCost`); the API calls themselves are free.
      return null;
    case 'STS':
      return null;
    case 'S3Control':
      // Batch Operations bill by the job and the object (see `monthlyCost`).
      return null;
  }
  throw new Error(`${call}: the cost model has no price for this call; add it to priceOfCall`);
}

/** The mean day of the week after its first (which holds the first run's backfill of the whole window). */
export function steadyDay(usage: WeekUsage): WeekDay {
  const days = usage.days.slice(1);
  const functions: Record<string, FunctionDay> = {};
  const stateMachines: WeekDay['stateMachines'] = {};
  for (const d of days) {
    for (const [name, f] of Object.entries(d.functions)) {
      const sum = functions[name] ?? { invocations: 0, gbSeconds: 0, awsCalls: {}, logBytes: 0 };
      functions[name] = sum;
      sum.invocations += f.invocations / days.length;
      sum.gbSeconds += f.gbSeconds / days.length;
      sum.logBytes += f.logBytes / days.length;
      for (const [call, n] of Object.entries(f.awsCalls))
        sum.awsCalls[call] = (sum.awsCalls[call] ?? 0) + n / days.length;
    }
    for (const [name, m] of Object.entries(d.stateMachines)) {
      const sum = stateMachines[name] ?? { executions: 0, transitions: 0 };
      stateMachines[name] = sum;
      sum.executions += m.executions / days.length;
      sum.transitions += m.transitions / days.length;
    }
  }
  const recordsFetched = days.reduce((n, d) => n + d.recordsFetched, 0) / days.length;
  return { day: days[0]?.day ?? usage.days[0]?.day ?? '', functions, stateMachines, recordsFetched };
}

/**
 * A month (30 days) of the stack for an account whose API exposes `sessionsPerDay` sessions a day, from the
 * first week's measured usage (its steady days: every scheduled call, as the team it ran made them) and the
 * bench's figures for what grows with the sessions: the pages the walks fetch (at the week's measured fetches
 * per session), the map items and state transitions they split into, the Parquet stored, the bytes the hourly
 * detections scan. List prices, no free tier. Each line is one bill item; the last is their sum.
 */
export function monthlyCost(usage: WeekUsage, f: ScaleFigures, sessionsPerDay: number): CostLine[] {
  const day = steadyDay(usage);
  const usd: Partial<Record<PriceName, number>> = {};
  const add = (price: PriceName, quantity: number) => {
    usd[price] = (usd[price] ?? 0) + quantity * LIST_PRICES[price].usd;
  };
  const lambda: Record<string, number> = {};
  const addGbSeconds = (fn: string, gbSeconds: number) => {
    const arch = usage.functions[fn]?.architecture ?? 'x86_64';
    lambda[fn] =
      (lambda[fn] ?? 0) +
      gbSeconds * (arch === 'arm64' ? LIST_PRICES.lambdaGbSecondArm64 : LIST_PRICES.lambdaGbSecondX86).usd;
  };
  const addCalls = (calls: Record<string, number>, times: number) => {
    for (const [call, n] of Object.entries(calls)) {
      const price = priceOfCall(call);
      if (price !== null) add(price, n * times);
    }
  };

  // What the schedules cost as the week measured it: every function's invocations, time and calls.
  for (const [fn, u] of Object.entries(day.functions)) {
    add('lambdaRequest', u.invocations * DAYS_A_MONTH);
    addGbSeconds(fn, u.gbSeconds * DAYS_A_MONTH);
    add('logIngestion', (u.logBytes / GB) * DAYS_A_MONTH);
    addCalls(u.awsCalls, DAYS_A_MONTH);
  }
  for (const m of Object.values(day.stateMachines)) add('stateTransition', m.transitions * DAYS_A_MONTH);

  // What grows with the sessions: the pages walked beyond the week's team, in map items of `rangePages`
  // pages, each item costing what one of the walking function's invocations did in the week.
  const walker = walkingFunction(usage, day);
  const fetchesPerSession = day.recordsFetched / usage.sessionsPerDay;
  const extraPages = Math.max(0, ((sessionsPerDay - usage.sessionsPerDay) * fetchesPerSession) / f.pageRows);
  if (walker !== undefined && extraPages > 0) {
    const u = day.functions[walker.fn] as FunctionDay;
    const extraItems = extraPages / f.rangePages;
    const memoryGb = (usage.functions[walker.fn]?.memoryMb ?? 1024) / 1024;
    add('lambdaRequest', extraItems * DAYS_A_MONTH);
    addGbSeconds(walker.fn, extraPages * f.secondsPerPage * memoryGb * DAYS_A_MONTH);
    add('logIngestion', ((extraItems * u.logBytes) / u.invocations / GB) * DAYS_A_MONTH);
    addCalls(u.awsCalls, (extraItems / u.invocations) * DAYS_A_MONTH);
    add('stateTransition', ((extraItems * walker.transitions) / u.invocations) * DAYS_A_MONTH);
  }

  // The detections: each query scans its rule's lookback of partitions (every column, an upper bound).
  const queries = Object.values(day.functions).reduce(
    (n, u) => n + (u.awsCalls['Athena:StartQueryExecution'] ?? 0),
    0,
  );
  const lookbacks = f.ruleLookbackDays.length > 0 ? f.ruleLookbackDays : [1];
  const bytesPerQuery =
    lookbacks.reduce(
      (n, days) => n + Math.max(ATHENA_LEAST_BYTES, days * sessionsPerDay * f.bytesPerRecord),
      0,
    ) / lookbacks.length;
  const athena = ((queries * bytesPerQuery) / TB) * DAYS_A_MONTH * LIST_PRICES.athenaScan.usd;

  // The archive a year holds, and the weekly checksum jobs over its objects.
  const storedGb = (sessionsPerDay * f.bytesPerRecord * 365) / GB;
  const storage = storedGb * LIST_PRICES.s3Storage.usd;
  const putsADay = Object.values(day.functions).reduce((n, u) => n + (u.awsCalls['S3:PutObject'] ?? 0), 0);
  const batch =
    BATCH_JOBS_A_MONTH * LIST_PRICES.batchJob.usd +
    BATCH_JOBS_A_MONTH * putsADay * 365 * LIST_PRICES.batchObject.usd;

  const metrics = usage.customMetrics.length * LIST_PRICES.customMetric.usd;
  const r = f.resources;
  const fixed =
    r.alarms * LIST_PRICES.alarm.usd +
    r.dashboards * LIST_PRICES.dashboard.usd +
    r.secrets * LIST_PRICES.secret.usd +
    r.kmsKeys * LIST_PRICES.kmsKey.usd;

  const lines: CostLine[] = [
    ...Object.entries(lambda)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([fn, v]) => ({ name: `Lambda compute: ${fn}`, usd: v })),
    { name: 'Lambda requests', usd: usd.lambdaRequest ?? 0 },
    { name: 'Step Functions state transitions', usd: usd.stateTransition ?? 0 },
    { name: 'DynamoDB requests', usd: (usd.dynamoRead ?? 0) + (usd.dynamoWrite ?? 0) },
    { name: 'S3 requests', usd: (usd.s3Read ?? 0) + (usd.s3Write ?? 0) },
    { name: 'S3 storage (the archive after a year)', usd: storage },
    { name: 'S3 Batch Operations (weekly checksum jobs)', usd: batch },
    { name: 'Athena scans of the detections', usd: athena },
    { name: 'CloudWatch custom metrics', usd: metrics },
    { name: 'CloudWatch Logs ingestion', usd: usd.logIngestion ?? 0 },
    {
      name: 'Secrets Manager, KMS, SNS and EventBridge requests',
      usd:
        (usd.secretsApi ?? 0) + (usd.kmsRequest ?? 0) + (usd.snsPublish ?? 0) + (usd.eventBridgeEvent ?? 0),
    },
    { name: 'Alarms, dashboard, secrets and keys', usd: fixed },
  ];
  return [...lines, { name: 'Total', usd: lines.reduce((n, l) => n + l.usd, 0) }];
}

/**
 * The function the scheduled state machine walks with (the one machine that runs on the steady days: the
 * fan-out; the verify job runs on demand), and that machine's transitions a day.
 */
function walkingFunction(usage: WeekUsage, day: WeekDay): { fn: string; transitions: number } | undefined {
  const scheduled = Object.entries(day.stateMachines).filter(([, m]) => m.executions > 0);
  if (scheduled.length !== 1) return undefined;
  const [machine, m] = scheduled[0] as [string, { transitions: number }];
  const fn = usage.stateMachineFunctions[machine];
  return fn !== undefined && day.functions[fn] !== undefined ? { fn, transitions: m.transitions } : undefined;
}

/** The heading of docs/operations.md's section that quotes the model. */
export const COST_SECTION = 'A month, modelled from the first week';

/** The account sizes the operations page quotes. */
export const ACCOUNT_SIZES = [1_000, 100_000, 1_000_000] as const;

const dollars = (usd: number) =>
  usd >= 100 ? `$${Math.round(usd).toLocaleString('en-US')}` : usd >= 0.01 ? `$${usd.toFixed(2)}` : '< $0.01';

/** The cells of the table `docs/operations.md` quotes: a header, then one row a bill item, one column an account size. */
export function costTableRows(usage: WeekUsage, f: ScaleFigures): string[][] {
  const columns = ACCOUNT_SIZES.map((n) => monthlyCost(usage, f, n));
  const header = [
    'a month, us-east-1 list prices',
    ...ACCOUNT_SIZES.map((n) => `${n.toLocaleString('en-US')} sessions a day`),
  ];
  const rows = (columns[0] ?? []).map((line, i) => {
    const cells = columns.map((c) => dollars(c[i]?.usd ?? 0));
    return line.name === 'Total'
      ? [`**${line.name}**`, ...cells.map((c) => `**${c}**`)]
      : [line.name, ...cells];
  });
  return [header, ...rows];
}

/** `costTableRows` as a Markdown table (numbers right-aligned). */
export function renderCostTable(usage: WeekUsage, f: ScaleFigures): string {
  const [header = [], ...rows] = costTableRows(usage, f);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}
