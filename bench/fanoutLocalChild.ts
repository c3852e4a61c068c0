/**
 * The `fanout-local` case's process (run with the Lambda's Node by bench/fanoutLocal.ts, peak RSS preloaded):
 * one orchestration of the synthesized state machine through `startLocalFanout`, the runner the state
 * machine's integration test uses, against the bench's replaying server. Prints one `RESULT <json>` line:
 * the orchestration's wall seconds, the map's (its first item's start to its last item's end), the map items walked and the most at one moment, its summary, and the
 * ids of every row in the archive (counted, not listed).
 */
import { readFileSync } from 'node:fs';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startLocalFanout } from '../devkit/infra/localFanout.ts';
import { readRecordIds } from '../lib/archive/parquet/readHistoryParquet.ts';
import { offsetClock } from '../lib/foundation/clock/offsetClock.ts';

const [definitionFile, apiUrl, simulatedStart, templateEnvFile] = process.argv.slice(2);
const definition = JSON.parse(readFileSync(definitionFile as string, 'utf8'));
const clock = offsetClock(new Date(simulatedStart as string));
const fanout = await startLocalFanout({
  definition,
  apiUrl: apiUrl as string,
  clock,
  // The fan-out function's environment as the synthesized template sets it (the bench's context).
  templateEnv: JSON.parse(readFileSync(templateEnvFile as string, 'utf8')) as Record<string, string>,
});
let items = 0;
/** Each item attempt: its id, and the error's name and message when it failed (the map retries it). */
const attempts: { id: string; error?: string; message?: string }[] = [];
let inFlight = 0;
let inFlightMax = 0;
/** When the first map item started and the last one ended (ms, this process's clock). */
let mapStart: number | undefined;
let mapEnd = 0;
const out: Record<string, unknown> = {};
try {
  const t0 = performance.now();
  const summary = await fanout.run('bench', {
    tasks: {
      WalkItem: async (input) => {
        items += 1;
        mapStart ??= performance.now();
        inFlight += 1;
        inFlightMax = Math.max(inFlightMax, inFlight);
        const id = (input as { item?: { id?: string } }).item?.id ?? '?';
        try {
          const result = await fanout.handler(input);
          attempts.push({ id });
          return result;
        } catch (error) {
          attempts.push({
            id,
            error: (error as Error).name,
            message: String((error as Error).message).slice(0, 300),
          });
          throw error;
        } finally {
          inFlight -= 1;
          mapEnd = performance.now();
        }
      },
    },
  }).result;
  out.wallSeconds = (performance.now() - t0) / 1000;
  out.summary = (summary as { summary?: unknown }).summary ?? summary;
  out.mapSeconds = ((mapEnd || t0) - (mapStart ?? t0)) / 1000;
  out.items = items;
  out.attempts = attempts;
  out.inFlightMax = inFlightMax;
  const { s3 } = fanout;
  let rows = 0;
  const distinct = new Set<string>();
  let token: string | undefined;
  do {
    const page = await s3.client.send(
      new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'history/', ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      if (!o.Key?.endsWith('.parquet')) continue;
      const body = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: o.Key }));
      const bytes = await (
        body.Body as { transformToByteArray(): Promise<Uint8Array> }
      ).transformToByteArray();
      for (const id of await readRecordIds(bytes)) {
        rows += 1;
        distinct.add(id);
      }
    }
    token = page.NextContinuationToken;
  } while (token);
  out.archived = { rows, distinct: distinct.size };
} catch (error) {
  out.error = { name: (error as Error).name, message: (error as Error).message };
} finally {
  await fanout.close();
}
console.log(`RESULT ${JSON.stringify(out)}`);
process.exit(0);
