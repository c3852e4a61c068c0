/** Child of bench/run.ts: measures the fetch-and-parse bound (see fetchBound) and prints it as JSON. */
import type { Day } from '../lib/clock/day.ts';
import { fetchBound } from './fetchBound.ts';

const args = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  days: Day[];
  pageSize: number;
  concurrency: number;
};
const result = await fetchBound(args.url, args.days, args);
console.log(JSON.stringify(result));
