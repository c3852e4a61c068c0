import {
  exportOcsf,
  loadRules,
  OCSF_CLASSES,
  OCSF_FORMATS,
  type OcsfClass,
  type OcsfFormat,
} from '../analytics/index.ts';
import { objectStoreFromUrl } from '../archive/adapters.ts';
import { loadConfig } from '../archive/index.ts';
import { ArchiverError, isDay } from '../foundation/index.ts';
import { localDestDir } from './buildRuntime.ts';
import type { CliIo } from './cliIo.ts';
import type { CliFlags } from './parseCliFlags.ts';

const invalid = (message: string) => new ArchiverError('CONFIG_INVALID', message);

function oneOf<T extends string>(flag: string, value: unknown, allowed: readonly T[], fallback?: T): T {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(`--${flag} must be one of ${allowed.join(', ')}, got '${String(value ?? '')}'`);
}

function day(flag: string, value: unknown): string {
  if (typeof value === 'string' && isDay(value)) return value;
  throw invalid(`--${flag} must be a day, YYYY-MM-DD, got '${String(value ?? '')}'`);
}

/**
 * `tunnel-archiver export --ocsf`: one class of the archive (local or S3) as OCSF events in a file under
 * `--out`. Reads the archive only; prints the file and the event count.
 */
export async function exportCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const v = flags.values;
  if (v.ocsf !== true) throw invalid('export writes OCSF only: pass --ocsf');
  if (flags.positionals.length > 0) throw invalid(`export takes no arguments, got '${flags.positionals[0]}'`);
  const cls = oneOf<OcsfClass>('class', v.class, OCSF_CLASSES);
  const format = oneOf<OcsfFormat>('format', v.format, OCSF_FORMATS, 'jsonl');
  const since = day('since', v.since);
  const until = day('until', v.until);
  if (typeof v.out !== 'string' || v.out === '') throw invalid('--out DIR is required');
  const config = loadConfig({ flags: { dest: v.dest }, env: io.env, readsOnly: true });
  const rules = await loadRules();
  const dir = localDestDir(config.dest);
  const objects = dir === undefined ? objectStoreFromUrl(config.dest) : undefined;
  try {
    const source = objects === undefined ? { dir: dir as string } : { objects };
    const r = await exportOcsf(source, { cls, since, until, format, outDir: v.out, rules });
    io.stdout.write(`${r.file}: ${r.events} OCSF ${cls} event${r.events === 1 ? '' : 's'}\n`);
    return 0;
  } finally {
    await objects?.close?.();
  }
}
