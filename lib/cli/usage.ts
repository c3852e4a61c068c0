import type { FlagSet } from './commandFlags.ts';
import { EXIT_CODES } from './exitCodes.ts';

export interface CommandHelp {
  /** `tunnel-archiver <usage>` */
  usage: string;
  summary: string;
  /** More lines after the summary. */
  details?: string;
  flags: FlagSet;
}

function flagLines(flags: FlagSet): string {
  return Object.entries(flags)
    .map(([name, f]) => `  --${`${name}${f.type === 'string' ? ' VALUE' : ''}`.padEnd(28)} ${f.help}`)
    .join('\n');
}

const exitLine = `Exit codes: ${EXIT_CODES.map((e) => `${e.code} ${e.meaning.split(/[:(]/)[0]?.trim()}`).join(', ')}.`;

/** The help of one command: usage, what it does, its flags. */
export function commandHelp(name: string, h: CommandHelp): string {
  return [
    `Usage: tunnel-archiver ${h.usage}`,
    '',
    h.summary,
    ...(h.details ? ['', h.details] : []),
    '',
    'Flags (a setting flag also has an environment variable; flags win):',
    flagLines(h.flags),
    '',
    `Same as: tunnel-archiver help ${name}`,
    '',
  ].join('\n');
}

/** The global help: commands, then how to get one command's help. */
export function globalUsage(commands: Record<string, { summary: string; usage: string }>): string {
  const lines = Object.values(commands).map((c) => `  tunnel-archiver ${c.usage}\n      ${c.summary}`);
  return `tunnel-archiver: keep every tunnel session of your account as Athena-ready Parquet.

Usage:
${lines.join('\n')}
  tunnel-archiver help <command>
      that command's help (also: tunnel-archiver <command> --help)
  tunnel-archiver --version
      the version

The API key comes only from the environment (TUNNEL_API_KEY); without it, \`start\` uses an embedded emulator.
${exitLine}
`;
}
