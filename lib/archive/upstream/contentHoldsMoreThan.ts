const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const CONTENT = Buffer.from('content');

/**
 * Whether a top-level `content` array of a JSON object's text holds more than `maxItems` items (any of
 * them, where the key is written more than once, escaped or not). It reads only the bytes' structure
 * (strings, brackets, commas) and builds nothing, and stops at the first item past `maxItems`: a body of
 * millions of tiny items is judged for one pass over part of its bytes, not a parse that costs many times
 * them. Meant for a body `JSON.parse` reads next: on text that is not JSON its answer is only a best guess.
 */
export function contentHoldsMoreThan(bytes: Uint8Array, maxItems: number): boolean {
  let i = 0;
  while (i < bytes.length && isWhitespace(bytes[i])) i++;
  if (bytes[i] !== OPEN_BRACE) return false;
  let depth = 0;
  /** The last string token at depth 1: the key of the value that follows it. */
  let keyStart = -1;
  let keyEnd = -1;
  let inContent = false;
  let commas = 0;
  let any = false;
  for (; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      const end = stringEnd(bytes, i);
      if (depth === 1) {
        keyStart = i;
        keyEnd = end;
      } else if (inContent && depth === 2) any = true;
      i = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (inContent && depth === 2) any = true;
      depth++;
      if (depth === 2 && byte === OPEN_BRACKET && namesContent(bytes, keyStart, keyEnd)) {
        inContent = true;
        commas = 0;
        any = false;
      }
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 1 && inContent) {
        inContent = false;
        if (any && commas + 1 > maxItems) return true;
      }
      if (depth <= 0) return false;
    } else if (inContent && depth === 2) {
      if (byte === COMMA) {
        commas++;
        if (commas + 1 > maxItems) return true;
      } else if (!isWhitespace(byte)) any = true;
    }
  }
  return false;
}

/** The index of the quote that closes the string opening at `open` (the length, if none does). */
function stringEnd(bytes: Uint8Array, open: number): number {
  for (let close = bytes.indexOf(QUOTE, open + 1); close >= 0; close = bytes.indexOf(QUOTE, close + 1)) {
    let slashes = 0;
    while (bytes[close - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return close;
  }
  return bytes.length;
}

/** Whether the string token `bytes[start..end]` (quotes included) is the key `content`, escapes read. */
function namesContent(bytes: Uint8Array, start: number, end: number): boolean {
  if (start < 0 || end >= bytes.length) return false;
  const token = bytes.subarray(start + 1, end);
  if (token.indexOf(BACKSLASH) < 0) return Buffer.compare(token, CONTENT) === 0;
  try {
    return JSON.parse(Buffer.from(bytes.subarray(start, end + 1)).toString('utf8')) === 'content';
  } catch {
    return false;
  }
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}
