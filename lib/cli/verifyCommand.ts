import { existsSync } from 'node:fs';
import { objectStoreFromUrl } from '../archive/adapters.ts';
import { type Config, loadConfig, readTokenKey, type TunnelApiClient } from '../archive/index.ts';
import { ArchiverError, isDay, offsetClock, silentLogger, systemClock } from '../foundation/index.ts';
import {
  type ExpectedHead,
  parseExpectedHead,
  type VerifyResult,
  verifyArchive,
} from '../integrity/index.ts';
import { buildApi, buildStores, keysDirOf, localDestDir, localStateDirOf } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import { cliLogger, resolveLogFormat, stderrLines } from './cliLog.ts';
import { EXIT_VERIFY_GAP } from './exitCodes.ts';
import { type CliFlags, parseNow } from './parseCliFlags.ts';

/**
 * `tunnel-archiver verify`: checks the archive on its own (read-only; no state, no keys): the digest
 * chain and signatures, every file's SHA-256 and rows, nothing unlisted or missing, no record twice.
 * With TUNNEL_API_KEY it also compares every window day with the API. Exit 5 only on a failure.
 */
export async function verifyCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const config = loadConfig({ flags: flags.values, env: io.env, readsOnly: true });
  const now = parseNow(flags.values.now);
  const sinceFlag = flags.values.since;
  if (sinceFlag !== undefined && (typeof sinceFlag !== 'string' || !isDay(sinceFlag)))
    throw new ArchiverError(
      'CONFIG_INVALID',
      `--since must be a day, YYYY-MM-DD, got '${String(sinceFlag)}'`,
    );
  const since = sinceFlag === undefined ? undefined : (sinceFlag as string);
  const clock = now ? offsetClock(now) : systemClock;
  const logger = cliLogger(stderrLines(io), config.logLevel, resolveLogFormat(config.logFormat, io));
  const objects = objectStoreFromUrl(config.dest);
  let api: TunnelApiClient | undefined;
  try {
    if (config.apiKey) api = buildApi(config, config.apiKey, clock, logger);
    else if (!flags.values.json)
      io.stderr.write('No TUNNEL_API_KEY: checking the archive only, not against the API\n');
    // Comparing with the API needs the token key (ids are keyed); the archive-only checks never do.
    const tokenKey = api ? await readTokenKey(keysDirOf(config, io.env)) : undefined;
    const expectedHeads: ExpectedHead[] = [];
    const auditor = flags.values['expect-head'];
    if (typeof auditor === 'string') expectedHeads.push(parseExpectedHead(auditor));
    const recorded = await stateHead(config, io, Boolean(flags.values.json));
    if (recorded) expectedHeads.push(recorded);
    const result = await verifyArchive(
      { objects, clock },
      {
        windowDays: config.windowDays,
        pageSize: config.pageSize,
        expectedHeads,
        ...(since === undefined ? {} : { since }),
        ...(api && tokenKey ? { api, tokenKey } : {}),
        ...(flags.values.json ? {} : { onProgress: progressLine(io) }),
      },
    );
    io.stdout.write(flags.values.json ? `${JSON.stringify(result)}\n` : formatVerify(result, objects.url));
    return result.ok ? 0 : EXIT_VERIFY_GAP;
  } finally {
    await api?.close();
    await objects.close?.();
  }
}

/** Every 100th file, a line on stderr: how far the full check is (files and MiB, of the files listed). */
function progressLine(io: CliIo): (done: { files: number; bytes: number; listed: number }) => void {
  return ({ files, bytes, listed }) => {
    if (files % 100 !== 0) return;
    io.stderr.write(`verify: ${files} of ${listed} files checked (${(bytes / 2 ** 20).toFixed(1)} MiB)\n`);
  };
}

/**
 * The chain head the state recorded, when the state can be read: `--state`, or the local state folder
 * when it exists (never created here). A state in use by a run, or unreadable, is skipped with a note:
 * the archive-only checks still run.
 */
async function stateHead(config: Config, io: CliIo, quiet: boolean): Promise<ExpectedHead | undefined> {
  const dir = localDestDir(config.dest);
  if (!config.state && (dir === undefined || !existsSync(localStateDirOf(dir)))) return undefined;
  try {
    const stores = await buildStores(config, silentLogger);
    try {
      const head = (await stores.state.getMeta())?.chainHead;
      return head && { seq: head.seq, sha256: head.sha256, source: 'the state' };
    } finally {
      await stores.close();
    }
  } catch (error) {
    if (!quiet)
      io.stderr.write(
        `The state cannot be read (${(error as Error).message}): the chain is not compared with the head it recorded\n`,
      );
    return undefined;
  }
}

/** Human report: summary, per-day comparison (with an API), then one line per failure naming its object or day. */
export function formatVerify(r: VerifyResult, where: string): string {
  const lines = [
    `Archive ${where}`,
    `  digests ${r.digests}, files ${r.files}, rows ${r.rows}, distinct records ${r.records}`,
    `  last digest written ${r.lastDigestAt ?? 'never'} (every run writes one: an old date means runs stopped, or the newest digests were removed)`,
    `  chain head ${r.head ? `${r.head.seq}:${r.head.sha256}` : 'none'} (note it; next time pass it as --expect-head)`,
    ...r.expectedHeads.map((h) => `  compared with the head ${h.source} recorded: ${h.seq}:${h.sha256}`),
    ...(r.since
      ? [
          `  checked only digests written and partitions from ${r.since} on (--since): run a full verify weekly`,
        ]
      : []),
  ];
  if (r.days.length > 0) {
    lines.push(
      '',
      `  ${'day'.padEnd(10)}  ${'api'.padStart(7)}  ${'archived'.padStart(8)}  ${'pending'.padStart(7)}  ${'missing'.padStart(7)}  last complete scan`,
    );
    for (const d of r.days) {
      lines.push(
        `  ${d.day}  ${String(d.upstream).padStart(7)}  ${String(d.archived).padStart(8)}  ${String(d.pending).padStart(7)}  ${String(d.missing).padStart(7)}  ${d.lastScanAt ?? 'never'}`,
      );
    }
    lines.push(`  pending (ended after the day's last scan; archived by a later run): ${r.pending}`);
  }
  lines.push(
    `  sessions seen live that history never listed although they ended in the window (upstream loss): ${r.lostSessions}`,
  );
  if (r.awaitingDigest?.length)
    lines.push(
      `  files written after the newest digest, awaiting the next run's (checked by the next verify): ${r.awaitingDigest.length}`,
    );
  lines.push('');
  if (r.failures.length === 0) {
    lines.push('verify OK');
  } else {
    lines.push(`  ${'check'.padEnd(15)}  object or day / what is wrong`);
    for (const f of r.failures)
      lines.push(`  ${f.kind.padEnd(15)}  ${f.object ?? f.day ?? ''}`, `  ${''.padEnd(15)}    ${f.message}`);
    lines.push(`verify FAILED: ${r.failures.length} failure(s)`);
  }
  return `${lines.join('\n')}\n`;
}
