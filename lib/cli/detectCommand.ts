import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  anyAtOrAbove,
  detectLocalArchive,
  findingsJson,
  formatFindings,
  loadRules,
  NO_OVERRIDES,
  readDetectionSettings,
  runRuleTests,
  SEVERITIES,
  type Severity,
} from '../analytics/index.ts';
import { archiveKeys, loadConfig } from '../archive/index.ts';
import {
  ArchiverError,
  isDay,
  offsetClock,
  systemClock,
  terminalJson,
  terminalText,
} from '../foundation/index.ts';
import { buildStores, loadCliKeys, localDestDir } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import { cliLogger, resolveLogFormat, stderrLines } from './cliLog.ts';
import { EXIT_FINDINGS } from './exitCodes.ts';
import type { CliFlags } from './parseCliFlags.ts';
import { parseNow } from './parseCliFlags.ts';

function severityFlag(value: unknown): Severity | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value))
    return value as Severity;
  throw new ArchiverError(
    'CONFIG_INVALID',
    `--fail-on must be one of ${SEVERITIES.join(', ')}, got '${String(value)}'`,
  );
}

/**
 * `tunnel-archiver detect`: every rule (or `--rule`) over the local archive; prints the findings and
 * exits 0 whether or not there are any (`--fail-on` makes findings fail, for CI). `--test` runs the
 * rules' yml tests instead.
 */
export async function detectCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const v = flags.values;
  const failOn = severityFlag(v['fail-on']);
  let rules = await loadRules();
  if (typeof v.rule === 'string') {
    rules = rules.filter((r) => r.id === v.rule);
    if (rules.length === 0) throw new ArchiverError('CONFIG_INVALID', `no rule '${v.rule}' in detections/`);
  }
  if (v.test) {
    const results = await runRuleTests(rules);
    for (const r of results)
      io.stdout.write(`${r.ok ? 'ok  ' : 'FAIL'} ${r.rule}: ${r.test}${r.ok ? '' : ` (${r.message})`}\n`);
    const failed = results.filter((r) => !r.ok).length;
    io.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
    return failed === 0 ? 0 : EXIT_FINDINGS;
  }
  if (v.since !== undefined && (typeof v.since !== 'string' || !isDay(v.since)))
    throw new ArchiverError('CONFIG_INVALID', `--since must be a day, YYYY-MM-DD, got '${String(v.since)}'`);
  const config = loadConfig({ flags: { dest: v.dest }, env: io.env });
  const dir = localDestDir(config.dest);
  if (dir === undefined)
    throw new ArchiverError(
      'CONFIG_INVALID',
      `detect reads a local archive; ${config.dest} is on S3 (the stack runs the rules there)`,
    );
  if (!existsSync(join(dir, archiveKeys.historyPrefix)))
    throw new ArchiverError(
      'CONFIG_INVALID',
      `no archive at ${dir} (no ${archiveKeys.historyPrefix} folder): run \`npm start\` or \`tunnel-archiver run\` first, or pass --dest`,
    );
  const overrides =
    typeof v.settings === 'string' ? await readDetectionSettings(v.settings, rules) : NO_OVERRIDES;
  const now = parseNow(v.now);
  const clock = now ? offsetClock(now) : systemClock;
  const logger = cliLogger(stderrLines(io), config.logLevel, resolveLogFormat(config.logFormat, io));
  const stores = await buildStores(config, logger);
  try {
    const { findingLedger } = stores;
    if (findingLedger === undefined)
      throw new ArchiverError(
        'CONFIG_INVALID',
        'detect keeps its finding claims in the local state: unset ARCHIVE_STATE',
      );
    const { signer } = await loadCliKeys(config, io.env, logger);
    const result = await detectLocalArchive(
      { dir, objects: stores.objects, state: stores.state, signer, ledger: findingLedger, clock, logger },
      {
        rules,
        overrides,
        // `--now` is the instant the rules evaluate, exactly: run again, it sees the same incidents.
        ...(now ? { at: now } : {}),
        ...(typeof v.since === 'string' ? { since: v.since } : {}),
      },
    );
    io.stdout.write(
      v.json
        ? `${terminalJson(findingsJson(result))}\n`
        : terminalText(formatFindings(result), { keepNewlines: true }),
    );
    return failOn !== undefined && anyAtOrAbove(result.findings, failOn) ? EXIT_FINDINGS : 0;
  } finally {
    await stores.close();
  }
}
