import { parseArgs } from 'node:util';
import { SETTINGS } from '../config/configSpec.ts';
import { ArchiverError } from '../errors/archiverError.ts';

type Option = { type: 'string' | 'boolean' };

const settingFlags: Record<string, Option> = Object.fromEntries(
  SETTINGS.filter((s) => 'flag' in s).map((s) => [(s as { flag: string }).flag, { type: 'string' as const }]),
);

export const COMMON_FLAGS: Record<string, Option> = {
  ...settingFlags,
  now: { type: 'string' },
  days: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean' },
};

export interface CliFlags {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses a subcommand's flags; unknown flags are a CONFIG_INVALID error with the flag named. */
export function parseCliFlags(argv: string[]): CliFlags {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: COMMON_FLAGS,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as CliFlags['values'], positionals };
  } catch (cause) {
    throw new ArchiverError('CONFIG_INVALID', (cause as Error).message, { cause });
  }
}

/** `--now ISO` as a Date, or undefined. */
export function parseNow(value: unknown): Date | undefined {
  if (value === undefined) return undefined;
  const t = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t))
    throw new ArchiverError('CONFIG_INVALID', `--now must be an ISO 8601 date-time, got '${String(value)}'`);
  return new Date(t);
}
