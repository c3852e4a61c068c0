import { existsSync } from 'node:fs';
import { type Config, loadConfig } from '../archive/index.ts';
import { ArchiverError, type Clock, offsetClock, systemClock, toDay } from '../foundation/index.ts';
import {
  archiveStatus,
  describeFullVerify,
  describeVerified,
  readLastFullVerify,
  readStatusInputs,
} from '../integrity/index.ts';
import { buildStores, localDestDir, localStateDirOf } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import { cliLogger, resolveLogFormat, stderrLines } from './cliLog.ts';
import { type CliFlags, parseNow } from './parseCliFlags.ts';

/**
 * `status` only reads: on a local destination with no archive (a mistyped --dest, or nothing run yet)
 * it says so and creates nothing, instead of starting an empty state store there.
 */
export function assertLocalArchiveExists(
  dest: string,
  state: string | undefined,
  options: { needState: boolean } = { needState: true },
): void {
  const dir = localDestDir(dest);
  if (dir === undefined) return;
  if (!existsSync(dir))
    throw new ArchiverError(
      'CONFIG_INVALID',
      `no archive at ${dir}: the folder does not exist (mistyped --dest?); nothing was created`,
    );
  if (options.needState && state === undefined && !existsSync(localStateDirOf(dir)))
    throw new ArchiverError(
      'CONFIG_INVALID',
      `no archive state in ${localStateDirOf(dir)}: nothing has been archived into ${dir} yet (run \`tunnel-archiver run\` first); nothing was created`,
    );
}

/**
 * `status` of an s3:// archive without ARCHIVE_STATE: each day's status, complete scans, files and rows as
 * the signed digests record them (the report's calendar), the last digest and the last full verify job.
 */
async function digestStatus(config: Config, clock: Clock, json: boolean, io: CliIo): Promise<number> {
  // Loaded here, not at the CLI's start: only an s3:// archive without a state needs the SDK and the model.
  const { objectStoreFromUrl } = await import('../archive/adapters.ts');
  const { buildReportModel } = await import('../integrity/index.ts');
  const objects = objectStoreFromUrl(config.dest);
  try {
    const model = await buildReportModel({ objects, clock, windowDays: config.windowDays });
    const days = model.calendar.filter((d) => d.scans > 0 || d.files > 0 || d.status !== 'window');
    if (json) {
      io.stdout.write(`${JSON.stringify({ source: 'digests', days, health: model.health })}\n`);
      return 0;
    }
    io.stdout.write(
      `no state (ARCHIVE_STATE unset): the days as the archive's digests record them\n${'day'.padEnd(11)} ${'status'.padEnd(8)} ${'scanned at ages'.padEnd(22)} ${'files'.padStart(5)} ${'rows'.padStart(8)}\n`,
    );
    for (const d of [...days].reverse())
      io.stdout.write(
        `${d.day} ${d.status.padEnd(8)} ${d.scannedAges.join(',').padEnd(22)} ${String(d.files).padStart(5)} ${String(d.rows).padStart(8)}${d.detail ? `  ${d.detail}` : ''}\n`,
      );
    io.stdout.write(`last digest written: ${model.health.lastDigestAt ?? 'never'}\n`);
    io.stdout.write(`last full verify job: ${describeFullVerify(await readLastFullVerify(objects))}\n`);
    return 0;
  } finally {
    await objects.close?.();
  }
}

/** Per-day table of what the archive holds: scanned ages, sealed, records, shortfall, at risk. */
export async function statusCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const config = loadConfig({ flags: flags.values, env: io.env, readsOnly: true });
  const now = parseNow(flags.values.now);
  const clock = now ? offsetClock(now) : systemClock;
  const today = toDay(clock.now());
  // An auditor's look at an s3:// archive with no state table: the days as the digests record them.
  if (config.state === undefined && localDestDir(config.dest) === undefined)
    return digestStatus(config, clock, Boolean(flags.values.json), io);
  assertLocalArchiveExists(config.dest, config.state);
  const stores = await buildStores(
    config,
    cliLogger(stderrLines(io), config.logLevel, resolveLogFormat(config.logFormat, io)),
  );
  try {
    const status = archiveStatus(await readStatusInputs(stores.state), {
      today,
      now: clock.now(),
      windowDays: config.windowDays,
    });
    const { meta, gaps, failed, live } = status;
    const rows = status.days;
    if (flags.values.json) {
      io.stdout.write(`${JSON.stringify(status)}\n`);
      return 0;
    }
    io.stdout.write(
      `${'day'.padEnd(11)} ${'age'.padStart(3)}  ${'scanned at ages'.padEnd(22)} sealed  records  total  short  at-risk\n`,
    );
    for (const r of rows.reverse()) {
      io.stdout.write(
        `${r.day} ${String(r.age).padStart(3)}  ${r.scanned.padEnd(22)} ${(r.sealed ? 'yes' : 'no').padEnd(6)} ${String(r.records).padStart(8)} ${String(r.total).padStart(6)} ${String(r.shortfall).padStart(6)}  ${r.atRisk ? 'AT RISK' : ''}\n`,
      );
    }
    io.stdout.write(
      `last run: ${meta?.lastRunAt ?? 'never'}; last success: ${meta?.lastSuccessAt ?? 'never'}; gaps: ${gaps.length ? gaps.join(', ') : 'none'}\n`,
    );
    io.stdout.write(`weekly verify: ${describeVerified(meta?.verified)}\n`);
    io.stdout.write(
      `last full verify job: ${describeFullVerify(await readLastFullVerify(stores.objects))}\n`,
    );
    for (const f of failed) {
      io.stdout.write(
        `failing day ${f.day} [${f.code}] ${f.message} (failed on ${f.attempts} run(s) in a row)\n`,
      );
    }
    io.stdout.write(
      `live sessions: ${live.open} open at the last snapshot (${live.lastSnapshotAt ?? 'never'}); ${live.longSessions.length} open longer than history can show\n`,
    );
    for (const l of live.longSessions) {
      io.stdout.write(
        `  LONG ${l.id} open since ${l.creationTime} (${l.ageDays.toFixed(1)} days): its active/ rows are its only record\n`,
      );
    }
    return 0;
  } finally {
    await stores.close();
  }
}
