/**
 * Runs the fan-out's synthesized state machine under aws-local-stepfunctions (`startLocalFanout`, started with
 * the Lambda's Node, tools/lambda-node, by fanoutStateMachine.int.test.ts), its Lambda tasks calling the real
 * handler in process, against the emulator, s3rver, dynalite and the KMS and Secrets Manager stubs, all
 * started and stopped here, with faults injected around the handler. Prints one `RESULT <json>` line.
 *
 * Time is the handlers' and the emulator's one simulated clock, started at `SIMULATED_START`: which days are
 * giant, and how many of their sessions have ended, never depends on the day or the hour the test runs.
 */
import { readFileSync } from 'node:fs';
import { startLocalFanout } from '../../devkit/infra/localFanout.ts';
import { STAND_IN_TOKEN_KEY } from '../../devkit/infra/standInsFor.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../../devkit/startEmulator.ts';
import { tokenKeyFromSecret } from '../../lib/archive/keys/tokenKeyFromSecret.ts';
import { recordId } from '../../lib/archive/records/recordId.ts';
import { objectStoreFromUrl } from '../../lib/archive/store/objectStoreFromUrl.ts';
import { createTunnelApiClient } from '../../lib/archive/upstream/createTunnelApiClient.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { offsetClock } from '../../lib/foundation/clock/offsetClock.ts';
import { verifyArchive } from '../../lib/integrity/verify/verifyArchive.ts';

const [definitionFile, windowDaysArg, simulatedStart, templateEnvFile] = process.argv.slice(2);
/** The fan-out function's template environment, as the parent synthesized it (`windowDays` context). */
const templateEnv = JSON.parse(readFileSync(templateEnvFile as string, 'utf8')) as Record<string, string>;
const WINDOW_DAYS = Number(windowDaysArg);
const definition = JSON.parse(readFileSync(definitionFile as string, 'utf8'));
const startedClock = offsetClock(new Date(simulatedStart as string));
/** Simulated time moved on by hand (a day between two orchestrations). */
let skipped = 0;
const clock: Clock = {
  now: () => new Date(startedClock.now().getTime() + skipped),
  sleep: (ms, signal) => startedClock.sleep(ms, signal),
};
const DAY_MS = 86_400_000;

const emulator = await startEmulator({
  seed: 24,
  clock,
  maxPageSize: 10,
  windowDays: WINDOW_DAYS,
  faults: { stableOrder: true },
  dataset: { normalMin: 5, normalMax: 30, heavyMin: 150, heavyMax: 220, heavyEveryDays: 4 },
});
const fanout = await startLocalFanout({
  definition,
  apiUrl: emulator.url,
  clock,
  templateEnv,
});
const { handler, s3 } = fanout;

/** A Lambda error as Step Functions names it: the error's own name. */
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

const log = {
  walks: [] as string[],
  errors: [] as { id: string; name: string }[],
  finishCalls: 0,
  storm: 0,
  /** The most page ranges walked at one moment. */
  rangesInFlightMax: 0,
};
let failedOnce: string | undefined;
/**
 * The range that fails on every attempt in the second orchestration, a day later (a giant day at its final
 * sweep is due again and split again): the map's Catch isolates it.
 */
let brokenRange: string | undefined;
let orchestration = 0;
let rangesInFlight = 0;
/**
 * The first range walked waits here until a second range is walked beside it: the overlap is seen, not left to
 * the scheduler. The wait ends on that event only, never on a timer (a slow machine is not a failure): a runner
 * walking one item at a time never starts the second range, and the parent's timeout fails the test.
 */
let meetSecondRange: (() => void) | undefined;
const secondRange = new Promise<void>((resolve) => {
  meetSecondRange = resolve;
});
async function enterRange(): Promise<void> {
  rangesInFlight += 1;
  log.rangesInFlightMax = Math.max(log.rangesInFlightMax, rangesInFlight);
  if (rangesInFlight >= 2) meetSecondRange?.();
  if (log.rangesInFlightMax === 1) await secondRange;
}
let storm: 'pending' | 'on' | 'over' = 'pending';
/** Rate-limited item attempts the storm lasts for (every worker meets 429s meanwhile). */
const STORM_LENGTH = 4;

const before = clock.now().toISOString();
const run = (name: string) => {
  orchestration += 1;
  return fanout.run(name, {
    retryIntervalOverrides: { Plan: 5, WalkItem: 20, Finish: 5 },
    tasks: {
      WalkItem: async (input: { item: { id: string; kind: string; from?: number } }) => {
        const { item } = input;
        log.walks.push(item.id);
        if (item.kind === 'range' && orchestration === 2) {
          brokenRange ??= item.id;
          if (brokenRange === item.id) throw named('Archiver.INTERNAL', 'the worker failed');
        }
        if (item.kind === 'range' && orchestration === 1) await enterRange();
        // The storm starts with the second range of the giant day, for every worker at once.
        if (storm === 'pending' && item.kind === 'range' && (item.from ?? 0) > 0) {
          storm = 'on';
          emulator.setFaults({ stableOrder: true, rate429: 1, retryAfterSeconds: 600 });
        }
        try {
          const out = await handler(input);
          // One range's first attempt commits, then its response is lost: the map retries it.
          if (item.kind === 'range' && failedOnce === undefined && storm === 'over') {
            failedOnce = item.id;
            throw named('Archiver.STORE_FAILED', 'lost response after the commit');
          }
          return out;
        } catch (error) {
          const name = (error as Error).name;
          log.errors.push({ id: item.id, name });
          if (name === 'Archiver.RATE_LIMITED' && ++log.storm >= STORM_LENGTH && storm === 'on') {
            storm = 'over';
            emulator.setFaults({ stableOrder: true });
          }
          throw error;
        } finally {
          if (item.kind === 'range' && orchestration === 1) rangesInFlight -= 1;
        }
      },
      Finish: async (input: unknown) => {
        const out = await handler(input);
        // The first finish's response is lost too: the retried step must not append a second digest.
        if (++log.finishCalls === 1) throw named('Archiver.STORE_FAILED', 'lost response after the digest');
        return out;
      },
    },
  });
};

const out: Record<string, unknown> = { before, today: toDay(clock.now()) };
try {
  out.first = await run('exec-1').result;
  out.firstLog = structuredClone(log);
  out.failedOnce = failedOnce;
  out.stormOver = storm;
  const walked = log.walks.length;
  // What the first window exposes before the day moves on (its first day then leaves the window).
  const tokenKey = tokenKeyFromSecret(STAND_IN_TOKEN_KEY, templateEnv.TOKEN_KEY_SECRET_ID ?? '');
  const windowAt = (at: Date) => dayRange(addDays(toDay(at), -(WINDOW_DAYS - 1)), toDay(at));
  const truth = (days: string[], at: Date) =>
    days.flatMap((d) => emulator.truth(d, at).map((r) => recordId(r, tokenKey)));
  const firstWindowEnd = clock.now();
  const firstWindowTruth = truth(windowAt(firstWindowEnd), firstWindowEnd);
  skipped += DAY_MS;
  out.second = await run('exec-2').result;
  out.secondWalks = log.walks.slice(walked);
  out.brokenRange = brokenRange;
  out.third = await run('exec-3').result;
  const after = clock.now();
  out.after = after.toISOString();
  // What the emulator exposed when the first orchestration began, and all it exposed until the last ended.
  out.truthBefore = truth(windowAt(new Date(before)), new Date(before));
  out.truthAfter = [...new Set([...firstWindowTruth, ...truth(windowAt(after), after)])];
  // The auditor's check, with fan-out on: the digest chain, every file, no id twice, the API compared.
  const api = createTunnelApiClient({ baseUrl: emulator.url, apiKey: EMULATOR_PAID_KEY });
  try {
    const verified = await verifyArchive(
      { objects: objectStoreFromUrl(`s3://${s3.bucket}/`, { s3Client: s3.client }), clock },
      { api, tokenKey, windowDays: WINDOW_DAYS, pageSize: 100 },
    );
    out.verify = { failures: verified.failures, digests: verified.digests };
  } finally {
    await api.close();
  }
} catch (error) {
  out.error = { name: (error as Error).name, message: (error as Error).message };
}
out.log = log;
out.s3 = { endpoint: s3.endpoint, bucket: s3.bucket };
console.log(`RESULT ${JSON.stringify(out)}`);
// The parent reads the archive while these stay up; it closes them by closing stdin.
process.stdin.resume();
process.stdin.on('end', async () => {
  await Promise.allSettled([emulator.close(), fanout.close()]);
  process.exit(0);
});
