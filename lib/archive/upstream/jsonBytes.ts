/** The bytes of JSON's structure that the body scans (`parseJsonBytes`, `contentHoldsMoreThan`) look for. */
export const JSON_BYTES = {
  quote: 0x22,
  backslash: 0x5c,
  openBrace: 0x7b,
  closeBrace: 0x7d,
  openBracket: 0x5b,
  closeBracket: 0x5d,
  comma: 0x2c,
  colon: 0x3a,
} as const;

/** JSON's whitespace: space, tab, line feed, carriage return. */
export function isJsonWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}
