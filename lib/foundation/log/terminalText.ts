/**
 * Characters a terminal may act on instead of showing: C0 controls (ESC starts colour, cursor and title
 * sequences; CR and BS overwrite what was printed), DEL, C1 controls (U+0080-U+009F: 0x9B is CSI on
 * terminals that read 8-bit controls), the line and paragraph separators, and the bidirectional
 * overrides and isolates (which reorder what is shown).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the control characters a terminal acts on
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_BUT_NEWLINE = new RegExp(
  CONTROL.source.replace('\\u0000-\\u001f', '\\u0000-\\u0009\\u000b-\\u001f'),
  'g',
);

const escaped = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * `text` safe to print on a terminal: every control character (see above) written as a visible escape
 * (`\x1b`, `\x9b`, `\u202e`), so a string from the upstream (a tunnel's name, a domain, an email) can
 * neither recolour, move the cursor, retitle the window nor hide what is printed. `keepNewlines` keeps
 * `\n` (the output's own line structure, when a whole output is passed); a single cell keeps none.
 * The one gate for upstream strings on a terminal: every command that prints them goes through it.
 */
export function terminalText(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(options.keepNewlines ? CONTROL_BUT_NEWLINE : CONTROL, escaped);
}

/**
 * `JSON.stringify(value)` with the control characters JSON leaves as they are (DEL, C1, the separators and
 * bidirectional controls) written as `\u` escapes: the same JSON value, safe on a terminal.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
