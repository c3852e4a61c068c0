/**
 * End-to-end benchmark: a full 60-day backfill from the emulator (default dataset, page cap 2000) into a
 * local folder with an embedded DynamoDB-compatible state store. Prints JSON: records/s, files, bytes, RSS.
 * Usage: node bin/run-ts.js bench/archiveRun.ts [seed]
 */
import { startEmulator } from '../lib/emulator/startEmulator.ts';
import { measuredLocalRun } from './measuredLocalRun.ts';

const seed = Number(process.argv[2] ?? 1);
const emulator = await startEmulator({ seed });
try {
  const { summary, seconds, peakRssMiB } = await measuredLocalRun(emulator.url, {});
  console.log(
    JSON.stringify({
      bench: 'archiveRun',
      seed,
      records: summary.recordsNew,
      days: summary.daysScanned,
      files: summary.files,
      bytes: summary.bytes,
      seconds: +seconds.toFixed(2),
      recordsPerSecond: Math.round(summary.recordsNew / seconds),
      peakRssMiB,
      shortfalls: summary.shortfalls.length,
    }),
  );
} finally {
  await emulator.close();
}
