import { describe, expect, it } from 'vitest';
import { COMMAND_FLAGS } from '../../lib/cli/commandFlags.ts';
import { parseCliFlags, parseNow } from '../../lib/cli/parseCliFlags.ts';

describe('parseCliFlags', () => {
  it('reads --name value, --name=value, on/off flags, -h, positionals and --', () => {
    expect(
      parseCliFlags(
        ['--page-size', '-1', '--dest=file://x', '--json', '-h', 'a', '--', '--b'],
        COMMAND_FLAGS.run,
      ),
    ).toEqual({
      values: { 'page-size': '-1', dest: 'file://x', json: true, help: true },
      positionals: ['a', '--b'],
    });
  });

  it.each([
    [['--bogus'], 'unknown flag --bogus; see tunnel-archiver run --help'],
    [['-x'], 'unknown flag -x; see tunnel-archiver run --help'],
    [['--json=1'], "--json takes no value, got '1'"],
    [['--dest'], '--dest needs a value; see tunnel-archiver run --help'],
    [['--dest', '--json'], '--dest needs a value; see tunnel-archiver run --help'],
  ])('%j is a CONFIG_INVALID that names the flag: %s', (argv, message) => {
    expect(() => parseCliFlags(argv, COMMAND_FLAGS.run, 'run')).toThrowError(
      expect.objectContaining({ code: 'CONFIG_INVALID', message }),
    );
  });
});

describe('parseNow', () => {
  it.each([
    ['2026-11-20T10:00:00Z', '2026-11-20T10:00:00.000Z'],
    ['2026-11-20T10:00:00.5+02:00', '2026-11-20T08:00:00.500Z'],
    ['2026-11-20T00:30-01:00', '2026-11-20T01:30:00.000Z'],
  ])('accepts %s', (text, iso) => {
    expect(parseNow(text)?.toISOString()).toBe(iso);
  });

  it.each(['2026/11/20 10:00:00', '12', '2026-02-30T00:00:00Z', '2026-11-20T10:00:00', 'now'])(
    'rejects %s with the value named',
    (text) => {
      expect(() => parseNow(text)).toThrowError(
        expect.objectContaining({
          code: 'CONFIG_INVALID',
          message: expect.stringContaining(`got '${text}'`),
        }),
      );
    },
  );

  it.each([['-- a comment line\nSELECT 1'], ['--comment\tSELECT 1'], ['- 1 day']])(
    'takes %j, text with white space before any =, as a positional, not a flag',
    (text) => {
      expect(parseCliFlags(['query-text-first', text], { json: { type: 'boolean', help: '' } })).toEqual({
        values: {},
        positionals: ['query-text-first', text],
      });
    },
  );

  it('still refuses an unknown flag that holds no white space', () => {
    expect(() => parseCliFlags(['--nope'], {})).toThrow(/unknown flag --nope/);
    expect(() => parseCliFlags(['--nope=a b'], {})).toThrow(/unknown flag --nope/);
  });
});
