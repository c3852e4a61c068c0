import { describe, expect, it } from 'vitest';
import {
  cliLogger,
  formatLogLine,
  resolveLogFormat,
  stderrLines,
  withoutRunFinished,
} from '../../lib/cli/cliLog.ts';
import { progressReporter } from '../../lib/cli/progressReporter.ts';
import { captureIo } from './cliKit.ts';

/** What a terminal shows: `\r` + erase-line clears the current line, `\n` ends it. */
function screen(raw: string): string[] {
  const lines: string[] = [];
  let current = '';
  const ESC = String.fromCharCode(27);
  for (const part of raw.split(new RegExp(`(\r${ESC}\\[2K|\n|\r)`))) {
    if (part === `\r${ESC}[2K` || part === '\r') current = '';
    else if (part === '\n') {
      lines.push(current);
      current = '';
    } else current += part;
  }
  if (current !== '') lines.push(current);
  return lines;
}

const T = new Date('2026-10-01T06:00:00Z');

describe('stderrLines', () => {
  it('on a terminal, a log line never shares a line with the progress bar', () => {
    const { io, err } = captureIo({}, true);
    const lines = stderrLines(io);
    const logger = cliLogger(lines, 'info', 'json', () => T);
    const progress = progressReporter(lines, true);
    progress.onProgress({ done: 1, total: 2, day: '2026-09-30', newRecords: 5 });
    logger.warn('day walk fell short', { day: '2026-09-30' });
    progress.onProgress({ done: 2, total: 2, day: '2026-10-01', newRecords: 1 });
    progress.finish();
    logger.info('after');
    const shown = screen(err());
    const log = shown.filter((l) => l.startsWith('{'));
    expect(log).toHaveLength(2);
    for (const l of log) expect(() => JSON.parse(l)).not.toThrow();
    expect(shown.at(-2)).toMatch(/^\[#+\] 2\/2 days {2}6 new records {2}\(2026-10-01\)$/);
    expect(err().endsWith('\n')).toBe(true);
  });

  it('off a terminal, progress is one plain line per day', () => {
    const { io, err } = captureIo({}, false);
    const progress = progressReporter(stderrLines(io), false);
    progress.onProgress({ done: 1, total: 2, day: '2026-09-30', newRecords: 5 });
    progress.finish();
    expect(err()).toBe('day 2026-09-30 done (1/2), 5 new records\n');
  });
});

describe('log format', () => {
  it.each([
    ['auto', true, 'human'],
    ['auto', false, 'json'],
    ['json', true, 'json'],
    ['human', false, 'human'],
  ] as const)('%s with a terminal=%s is %s', (format, tty, expected) => {
    expect(resolveLogFormat(format, captureIo({}, tty).io)).toBe(expected);
  });

  it('writes a human line or one JSON object', () => {
    expect(formatLogLine('human', 'warn', T, 'retrying', { attempt: 2, path: '/a b' })).toBe(
      'WARN retrying attempt=2 path="/a b"',
    );
    expect(JSON.parse(formatLogLine('json', 'info', T, 'm', { a: 1 }))).toEqual({
      level: 'info',
      time: T.toISOString(),
      message: 'm',
      a: 1,
    });
  });

  it('drops only the engine’s run finished record beside a human summary', () => {
    const { io, err } = captureIo();
    const logger = withoutRunFinished(cliLogger(stderrLines(io), 'debug', 'human', () => T));
    logger.info('run finished', { files: 1 });
    logger.info('something else');
    expect(err()).toBe('INFO something else\n');
  });
});
