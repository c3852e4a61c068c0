/** Child of bench/heavyDay.ts: archives one day into a temp folder and prints seconds and peak RSS. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock } from '../lib/clock/clock.ts';
import { archiveOptionsFromConfig } from '../lib/config/archiveOptionsFromConfig.ts';
import { loadConfig } from '../lib/config/loadConfig.ts';
import { EMULATOR_PAID_KEY } from '../lib/emulator/startEmulator.ts';
import { runArchive } from '../lib/engine/runArchive.ts';
import { silentLogger } from '../lib/log/logger.ts';
import { createDynamoStateStore, ensureStateTable } from '../lib/state/dynamoStateStore.ts';
import { startLocalDynamo } from '../lib/state/localDynamo.ts';
import { createFileObjectStore } from '../lib/store/fileObjectStore.ts';
import { createTunnelApiClient } from '../lib/upstream/createTunnelApiClient.ts';

const [url, day] = process.argv.slice(2) as [string, string];
const dir = await mkdtemp(join(tmpdir(), 'ta-heavy-'));
const local = await startLocalDynamo();
const client = new DynamoDBClient({
  endpoint: local.endpoint,
  region: 'local',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
await ensureStateTable(client, 'bench');
const api = createTunnelApiClient({ baseUrl: url, apiKey: EMULATOR_PAID_KEY });
const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const t0 = performance.now();
const summary = await runArchive(
  {
    api,
    objects: createFileObjectStore(join(dir, 'archive')),
    state: createDynamoStateStore({ client, table: 'bench' }),
    clock: systemClock,
    logger: silentLogger,
  },
  archiveOptionsFromConfig(loadConfig({ env: process.env }), { onlyDays: [day] }),
);
clearInterval(sampler);
console.log(
  JSON.stringify({
    archived: summary.recordsNew,
    pages: summary.days[0]?.pages,
    seconds: +((performance.now() - t0) / 1000).toFixed(1),
    baselineRssMiB: Math.round(baseline / 1_048_576),
    peakRssMiB: Math.round(peak / 1_048_576),
  }),
);
await api.close();
client.destroy();
await local.close();
await rm(dir, { recursive: true, force: true });
