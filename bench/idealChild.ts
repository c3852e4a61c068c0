/** Child of bench/run.ts: the ideal client's time for the requests it is given (see idealFetch), as JSON. */
import { cpuSecondsSince } from './cpuSeconds.ts';
import { idealFetch } from './idealFetch.ts';

const args = JSON.parse(process.argv[2] ?? '{}') as { url: string; paths: string[]; concurrency: number };
const cpu0 = process.cpuUsage();
const result = await idealFetch(args.url, args.paths, args);
console.log(JSON.stringify({ ...result, cpuSeconds: cpuSecondsSince(cpu0) }));
