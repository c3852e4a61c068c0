import { describe, expect, it } from 'vitest';
import { activeTable, formatActiveTable } from '../../lib/archive/active/activeTable.ts';
import { terminalJson, terminalText } from '../../lib/foundation/log/terminalText.ts';
import { session } from '../active/activeKit.ts';

/** Anything a terminal would act on: ESC (CSI, OSC title), BEL, CR, BS, DEL, 8-bit CSI, a bidi override. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: what the test looks for
const ACTS_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = 'evil\u001b[2J\u001b]0;pwned\u0007\r\b\u007f\u009b31m\u202Egnp.exe';

describe('terminalText', () => {
  it.each([
    ['\u001b[31mred', '\\x1b[31mred'],
    ['a\rb', 'a\\x0db'],
    ['\u009b2J', '\\x9b2J'],
    ['\u007f', '\\x7f'],
    ['\u202Etxt', '\\u202etxt'],
    ['plain ünïcode 😀', 'plain ünïcode 😀'],
    ['two\nlines', 'two\\x0alines'],
  ])('writes %j as %j', (text, shown) => {
    expect(terminalText(text)).toBe(shown);
  });

  it('keeps the newlines of a whole output when asked, and escapes everything else', () => {
    expect(terminalText(`a\n${HOSTILE}\n`, { keepNewlines: true })).not.toMatch(ACTS_ON);
    expect(terminalText('a\nb\n', { keepNewlines: true })).toBe('a\nb\n');
  });

  it('gives JSON that parses back to the same value', () => {
    const value = { name: HOSTILE, n: 1 };
    const text = terminalJson(value);
    expect(text).not.toMatch(ACTS_ON);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('the active table', () => {
  it('prints upstream strings with every control character escaped', () => {
    const rows = activeTable(
      [
        session('abc', {
          virtualTokenName: HOSTILE,
          subdomain: `x${HOSTILE}.a.pinggy.link`,
          mode: `tcp${HOSTILE}`,
          creationTimestamp: '2025-02-28T00:00:00.000Z',
        }),
      ],
      new Date('2025-03-01T00:00:00.000Z'),
      60,
    );
    const out = formatActiveTable(rows);
    expect(out).not.toMatch(ACTS_ON);
    expect(out).toContain('evil\\x1b[2J');
  });
});
