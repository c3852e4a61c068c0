import type { Config } from '../archive/index.ts';
import type { Logger } from '../foundation/index.ts';
import type { CliIo } from './cliIo.ts';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

/**
 * stderr shared by progress and logs. On a terminal the progress line is redrawn in place; a log line
 * first clears it, is written whole, and the progress line is drawn again below it, so the two never
 * share a line.
 */
export interface StderrLines {
  /** A whole line (a log record, a notice). */
  line(text: string): void;
  /** The transient progress line (terminal) or a plain line (pipe, CI log). */
  progress(text: string): void;
  /** Ends a pending progress line. */
  end(): void;
}

const CLEAR = '\r\x1b[2K';

export function stderrLines(io: CliIo): StderrLines {
  const tty = Boolean(io.stderr.isTTY);
  let pending: string | undefined;
  return {
    line(text) {
      if (tty && pending !== undefined) io.stderr.write(CLEAR);
      io.stderr.write(`${text}\n`);
      if (tty && pending !== undefined) io.stderr.write(pending);
    },
    progress(text) {
      if (!tty) {
        io.stderr.write(`${text}\n`);
        return;
      }
      pending = text;
      io.stderr.write(`${CLEAR}${text}`);
    },
    end() {
      if (tty && pending !== undefined) io.stderr.write('\n');
      pending = undefined;
    },
  };
}

/** `auto` is plain lines for a person at a terminal, JSON lines for anything else (files, CI, jq). */
export function resolveLogFormat(format: Config['logFormat'], io: CliIo): 'human' | 'json' {
  if (format !== 'auto') return format;
  return io.stderr.isTTY ? 'human' : 'json';
}

function humanValue(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** One log record as a line: `{"level":...}` or `WARN message key=value ...`. */
export function formatLogLine(
  format: 'human' | 'json',
  level: Level,
  time: Date,
  message: string,
  attributes: Record<string, unknown> = {},
): string {
  if (format === 'json') return JSON.stringify({ level, time: time.toISOString(), message, ...attributes });
  const attrs = Object.entries(attributes)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${humanValue(v)}`)
    .join(' ');
  return `${level.toUpperCase()} ${message}${attrs === '' ? '' : ` ${attrs}`}`;
}

/** The CLI's logger: `minLevel` and up, in `format`, through the shared stderr lines. */
export function cliLogger(
  lines: StderrLines,
  minLevel: Level,
  format: 'human' | 'json',
  now: () => Date = () => new Date(),
): Logger {
  const min = LEVELS.indexOf(minLevel);
  const emit = (level: Level) => (message: string, attributes?: Record<string, unknown>) => {
    if (LEVELS.indexOf(level) < min) return;
    lines.line(formatLogLine(format, level, now(), message, attributes));
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/**
 * Drops the engine's closing `run finished` record: when the CLI prints its human summary, the same
 * facts would otherwise appear twice, once as a JSON line beside it.
 */
export function withoutRunFinished(logger: Logger): Logger {
  return { ...logger, info: (m, a) => (m === 'run finished' ? undefined : logger.info(m, a)) };
}
