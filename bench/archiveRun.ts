/**
 * End-to-end benchmark: a full 60-day backfill from the emulator (default dataset, page cap 2000) into a
 * local folder with an embedded DynamoDB-compatible state store. Prints JSON: records/s, files, bytes, RSS.
 * Usage: node bin/run-ts.js bench/archiveRun.ts [seed]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock } from '../lib/clock/clock.ts';
import { archiveOptionsFromConfig } from '../lib/config/archiveOptionsFromConfig.ts';
import { loadConfig } from '../lib/config/loadConfig.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../lib/emulator/startEmulator.ts';
import { runArchive } from '../lib/engine/runArchive.ts';
import { silentLogger } from '../lib/log/logger.ts';
import { createDynamoStateStore, ensureStateTable } from '../lib/state/dynamoStateStore.ts';
import { startLocalDynamo } from '../lib/state/localDynamo.ts';
import { createFileObjectStore } from '../lib/store/fileObjectStore.ts';
import { createTunnelApiClient } from '../lib/upstream/createTunnelApiClient.ts';

const seed = Number(process.argv[2] ?? 1);
const dir = await mkdtemp(join(tmpdir(), 'ta-bench-'));
const emulator = await startEmulator({ seed });
const local = await startLocalDynamo({ dir: join(dir, '.state') });
const client = new DynamoDBClient({
  endpoint: local.endpoint,
  region: 'local',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
await ensureStateTable(client, 'bench');
const api = createTunnelApiClient({ baseUrl: emulator.url, apiKey: EMULATOR_PAID_KEY });
let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);
const t0 = performance.now();
const summary = await runArchive(
  {
    api,
    objects: createFileObjectStore(join(dir, 'archive')),
    state: createDynamoStateStore({ client, table: 'bench' }),
    clock: systemClock,
    logger: silentLogger,
  },
  archiveOptionsFromConfig(loadConfig({ env: {} })),
);
const ms = performance.now() - t0;
clearInterval(sampler);
console.log(
  JSON.stringify({
    bench: 'archiveRun',
    seed,
    records: summary.recordsNew,
    days: summary.daysScanned,
    files: summary.files,
    bytes: summary.bytes,
    seconds: +(ms / 1000).toFixed(2),
    recordsPerSecond: Math.round(summary.recordsNew / (ms / 1000)),
    peakRssMiB: Math.round(peakRss / 1_048_576),
    shortfalls: summary.shortfalls.length,
  }),
);
await api.close();
client.destroy();
await local.close();
await emulator.close();
await rm(dir, { recursive: true, force: true });
