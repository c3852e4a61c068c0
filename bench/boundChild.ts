/** Child of bench/run.ts: measures the fetch-and-parse bound (see fetchBound) and prints it as JSON. */
import type { Day } from '../lib/foundation/clock/day.ts';
import { cpuSecondsSince } from './cpuSeconds.ts';
import { fetchBound } from './fetchBound.ts';

const args = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  days: Day[];
  pageSize: number;
  concurrency: number;
};
const cpu0 = process.cpuUsage();
const result = await fetchBound(args.url, args.days, args);
console.log(JSON.stringify({ ...result, cpuSeconds: cpuSecondsSince(cpu0) }));
