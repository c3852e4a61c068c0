/** Child of bench/heavyDay.ts: archives one day into a temp folder and prints seconds and peak RSS. */
import { measuredLocalRun } from './measuredLocalRun.ts';

const [url, day] = process.argv.slice(2) as [string, string];
const { summary, seconds, baselineRssMiB, peakRssMiB } = await measuredLocalRun(url, process.env, {
  onlyDays: [day],
});
console.log(
  JSON.stringify({
    archived: summary.recordsNew,
    pages: summary.days[0]?.pages,
    seconds: +seconds.toFixed(1),
    baselineRssMiB,
    peakRssMiB,
  }),
);
