import { ArchiverError } from '../foundation/index.ts';
import { commandsTaking, type FlagSet } from './commandFlags.ts';

export type { FlagSet, FlagSpec } from './commandFlags.ts';

export interface CliFlags {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

const invalid = (message: string): ArchiverError => new ArchiverError('CONFIG_INVALID', message);

/**
 * Parses a command's flags (its row of `COMMAND_FLAGS`): `--name value`, `--name=value`, `--flag`, `-h`,
 * positionals, and `--`. A word that opens with `--` but holds white space before any `=` (SQL opening with a
 * `-- comment`) is a positional. A string flag takes the next word as its value unless that word is one of the
 * command's flags, so `--page-size -1` reaches validation as '-1' and is rejected in the tool's words.
 * A flag the command does not take (another command's, or none's), a missing value and a value given to
 * an on/off flag are `CONFIG_INVALID` errors (exit 2) that name the flag.
 */
export function parseCliFlags(argv: string[], flags: FlagSet, command?: string): CliFlags {
  const values: CliFlags['values'] = {};
  const positionals: string[] = [];
  const seeHelp = `see tunnel-archiver ${command === undefined ? '' : `${command} `}--help`;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (token === '-h') {
      values.help = true;
      continue;
    }
    // A word with white space before any `=` is never a flag: it is text, such as SQL that opens with a
    // `-- comment` line (the stack's saved Athena queries do), and goes to the positionals as written.
    if (/^-[^=\s]*\s/.test(token)) {
      positionals.push(token);
      continue;
    }
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      const name = eq < 0 ? token.slice(2) : token.slice(2, eq);
      const inline = eq < 0 ? undefined : token.slice(eq + 1);
      const spec = flags[name];
      if (spec === undefined) throw invalid(`${notTaken(name, command)}; ${seeHelp}`);
      if (spec.type === 'boolean') {
        if (inline !== undefined) throw invalid(`--${name} takes no value, got '${inline}'`);
        values[name] = true;
        continue;
      }
      const next = argv[i + 1];
      const nextIsFlag =
        next !== undefined && /^--[^=]+/.test(next) && (next.slice(2).split('=')[0] ?? '') in flags;
      const value = inline ?? (nextIsFlag ? undefined : next);
      if (value === undefined) throw invalid(`--${name} needs a value; ${seeHelp}`);
      if (inline === undefined) i++;
      values[name] = value;
      continue;
    }
    if (/^-[^\d.]/.test(token)) throw invalid(`unknown flag ${token}; ${seeHelp}`);
    positionals.push(token);
  }
  return { values, positionals };
}

/** Why `--name` is refused: a flag of other commands, or of none. */
function notTaken(name: string, command: string | undefined): string {
  const owners = commandsTaking(name).filter((c) => c !== command);
  if (command === undefined || owners.length === 0) return `unknown flag --${name}`;
  return `${command} does not take --${name} (a flag of ${owners.join(', ')})`;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `--now ISO` as a Date, or undefined. Only a real ISO 8601 instant with an offset is accepted. */
export function parseNow(value: unknown): Date | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  const t = ISO_INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(t) || !sameCalendarDay(text, t))
    throw invalid(
      `--now must be an ISO 8601 instant with an offset, e.g. 2026-11-20T10:00:00Z, got '${String(value)}'`,
    );
  return new Date(t);
}

/** Rejects dates that `Date.parse` rolls over (2026-02-30 would become 2 March). */
function sameCalendarDay(text: string, t: number): boolean {
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(text);
  const shift = offset
    ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000
    : 0;
  return new Date(t + shift).toISOString().slice(0, 10) === text.slice(0, 10);
}
