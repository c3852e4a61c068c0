import { systemClock } from '../clock/clock.ts';
import { dayRange, toDay } from '../clock/day.ts';
import { offsetClock } from '../clock/offsetClock.ts';
import { EMULATOR_PAID_KEY, startEmulator } from '../emulator/startEmulator.ts';
import { archiveKeys } from '../engine/archiveKeys.ts';
import { windowStartOf } from '../engine/planDays.ts';
import { preflight } from '../engine/preflight.ts';
import { readRecordIds } from '../parquet/readHistoryParquet.ts';
import { buildApi, buildStores } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import { EXIT_VERIFY_GAP } from './exitCodes.ts';
import { type CliFlags, parseNow } from './parseCliFlags.ts';
import { type RunContext, runContext } from './runCommand.ts';

interface DayCheck {
  day: string;
  apiTotal: number;
  archived: number;
  missing: number;
}

/**
 * Compares the API's current `totalElements` for every window day with the distinct records the
 * archive holds for it, reads every listed file back, and looks for files the manifests do not list.
 * Exits 5 when anything is missing or unreadable.
 */
export async function verifyCommand(flags: CliFlags, io: CliIo): Promise<number> {
  if (io.env.TUNNEL_API_KEY) return verifyWith(runContext(flags, io), flags, io);
  // Local mode: no key means the archive came from the embedded emulator (`npm start`); verify against it.
  const now = parseNow(flags.values.now);
  const emulator = await startEmulator({ seed: 1, clock: now ? offsetClock(now) : systemClock });
  try {
    io.stderr.write(`No TUNNEL_API_KEY: verifying against the embedded emulator at ${emulator.url}\n`);
    return await verifyWith(
      runContext(flags, io, { baseUrl: emulator.url, apiKey: EMULATOR_PAID_KEY }),
      flags,
      io,
    );
  } finally {
    await emulator.close();
  }
}

async function verifyWith(ctx: RunContext, flags: CliFlags, io: CliIo): Promise<number> {
  const api = buildApi(ctx.config, ctx.apiKey, ctx.clock, ctx.logger);
  try {
    const today = toDay(ctx.clock.now());
    await preflight(api, today);
    const stores = await buildStores(ctx.config, ctx.logger);
    try {
      const problems: string[] = [];
      const listed = new Set<string>();
      const checks: DayCheck[] = [];
      for (const day of dayRange(windowStartOf(today, ctx.config.windowDays), today)) {
        const manifest = await stores.state.getPartition(day);
        const ids = new Set<string>();
        for (const f of manifest?.files ?? []) {
          const key = f.published ? archiveKeys.data(day, f.name) : f.stagingKey;
          listed.add(archiveKeys.data(day, f.name));
          const bytes = await stores.objects.get(key);
          if (!bytes) {
            problems.push(`missing file ${key}`);
            continue;
          }
          try {
            const fileIds = await readRecordIds(bytes);
            if (fileIds.length !== f.rows)
              problems.push(`${key} has ${fileIds.length} rows, manifest says ${f.rows}`);
            for (const id of fileIds) ids.add(id);
          } catch (e) {
            problems.push(`unreadable file ${key}: ${(e as Error).message}`);
          }
        }
        const page = await api.historyPage(day, day, 0, 1);
        checks.push({
          day,
          apiTotal: page.totalElements,
          archived: ids.size,
          missing: Math.max(0, page.totalElements - ids.size),
        });
      }
      for await (const o of stores.objects.list(archiveKeys.historyPrefix)) {
        const dt = /dt=(\d{4}-\d{2}-\d{2})\//.exec(o.key)?.[1];
        if (dt && dt >= windowStartOf(today, ctx.config.windowDays) && !listed.has(o.key))
          problems.push(`file not in any manifest: ${o.key}`);
      }
      const gaps = checks.filter((c) => c.missing > 0);
      for (const g of gaps)
        problems.push(`${g.day}: API has ${g.apiTotal}, archive has ${g.archived} (${g.missing} missing)`);
      if (flags.values.json)
        io.stdout.write(`${JSON.stringify({ ok: problems.length === 0, checks, problems })}\n`);
      else {
        io.stdout.write(
          `verified ${checks.length} days: ${checks.reduce((a, c) => a + c.archived, 0)} records archived, ${checks.reduce((a, c) => a + c.apiTotal, 0)} reported by the API\n`,
        );
        for (const p of problems) io.stdout.write(`  PROBLEM ${p}\n`);
        io.stdout.write(problems.length ? `verify FAILED: ${problems.length} problem(s)\n` : 'verify OK\n');
      }
      return problems.length ? EXIT_VERIFY_GAP : 0;
    } finally {
      await stores.close();
    }
  } finally {
    await api.close();
  }
}
