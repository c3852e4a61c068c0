import { redactLogAttributes } from './redactLogAttributes.ts';

/** Port: structured logging. Powertools' `Logger` satisfies it; so does `jsonLineLogger`. */
export interface Logger {
  debug(message: string, attributes?: Record<string, unknown>): void;
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

/** Wraps a logger so every attribute set is redacted first (token-bearing names at any depth). */
export function redactingLogger(inner: Logger): Logger {
  const wrap =
    (f: Logger['info']) =>
    (message: string, attributes?: Record<string, unknown>): void =>
      f(message, attributes === undefined ? undefined : redactLogAttributes(attributes));
  return {
    debug: wrap(inner.debug),
    info: wrap(inner.info),
    warn: wrap(inner.warn),
    error: wrap(inner.error),
  };
}

/**
 * One JSON object per line on `write` (stderr by default), at `minLevel` and above. Token-bearing
 * attributes are redacted (see `redactLogAttributes`).
 */
export function jsonLineLogger(
  minLevel: Level = 'info',
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  now: () => Date = () => new Date(),
): Logger {
  const min = LEVELS.indexOf(minLevel);
  const emit = (level: Level) => (message: string, attributes?: Record<string, unknown>) => {
    if (LEVELS.indexOf(level) < min) return;
    const safe = attributes === undefined ? {} : redactLogAttributes(attributes);
    write(JSON.stringify({ level, time: now().toISOString(), message, ...safe }));
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
