import { loadConfig, repairPartition } from '../archive/index.ts';
import { ArchiverError, isDay } from '../foundation/index.ts';
import { buildStores } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import { cliLogger, resolveLogFormat, stderrLines } from './cliLog.ts';
import type { CliFlags } from './parseCliFlags.ts';

/** `repair --dt DAY [--apply]`: the way out of PARTITION_BROKEN (see `repairPartition`). */
export async function repairCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const dt = String(flags.values.dt ?? '');
  if (!isDay(dt)) throw new ArchiverError('CONFIG_INVALID', `--dt must be a day YYYY-MM-DD, got '${dt}'`);
  const dataset = String(flags.values.dataset ?? 'history');
  if (dataset !== 'history' && dataset !== 'active') {
    throw new ArchiverError('CONFIG_INVALID', `--dataset must be history or active, got '${dataset}'`);
  }
  const config = loadConfig({ flags: flags.values, env: io.env });
  const logger = cliLogger(stderrLines(io), config.logLevel, resolveLogFormat(config.logFormat, io));
  const stores = await buildStores(config, logger);
  try {
    const apply = flags.values.apply === true;
    const result = await repairPartition({ ...stores, logger }, dt, { dataset, apply });
    if (flags.values.json === true) {
      io.stdout.write(`${JSON.stringify({ ...result, applied: apply })}\n`);
    } else if (result.dropped.length === 0) {
      io.stdout.write(`${dataset}/dt=${dt}: every listed file is present; nothing to repair\n`);
    } else {
      const verb = apply ? 'dropped' : 'would drop (run again with --apply)';
      io.stdout.write(
        `${dataset}/dt=${dt}: ${verb} ${result.dropped.length} missing file(s), ${result.rowsLost} rows:\n` +
          result.dropped.map((f) => `  ${f.name} (${f.rows} rows)\n`).join('') +
          'Their records are archived again by the next scan of their day while it is in the API window.\n',
      );
    }
    return 0;
  } finally {
    await stores.close();
  }
}
