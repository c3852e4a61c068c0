import { isJsonWhitespace, JSON_BYTES } from './jsonBytes.ts';

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
  while (i < bytes.length && isJsonWhitespace(bytes[i])) i++;
  if (bytes[i] !== JSON_BYTES.openBrace) return false;
  let depth = 0;
  /** The last string token at depth 1: the key of the value that follows it. */
  let keyStart = -1;
  let keyEnd = -1;
  let inContent = false;
  let commas = 0;
  let any = false;
  for (; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === JSON_BYTES.quote) {
      const end = stringEnd(bytes, i);
      if (depth === 1) {
        keyStart = i;
        keyEnd = end;
      } else if (inContent && depth === 2) any = true;
      i = end;
    } else if (byte === JSON_BYTES.openBrace || byte === JSON_BYTES.openBracket) {
      if (inContent && depth === 2) any = true;
      depth++;
      if (depth === 2 && byte === JSON_BYTES.openBracket && namesContent(bytes, keyStart, keyEnd)) {
        inContent = true;
        commas = 0;
        any = false;
      }
    } else if (byte === JSON_BYTES.closeBrace || byte === JSON_BYTES.closeBracket) {
      depth--;
      if (depth === 1 && inContent) {
        inContent = false;
        if (any && commas + 1 > maxItems) return true;
      }
      if (depth <= 0) return false;
    } else if (inContent && depth === 2) {
      if (byte === JSON_BYTES.comma) {
        commas++;
        if (commas + 1 > maxItems) return true;
      } else if (!isJsonWhitespace(byte)) any = true;
    }
  }
  return false;
}

/** The index of the quote that closes the string opening at `open` (the length, if none does). */
function stringEnd(bytes: Uint8Array, open: number): number {
  for (
    let close = bytes.indexOf(JSON_BYTES.quote, open + 1);
    close >= 0;
    close = bytes.indexOf(JSON_BYTES.quote, close + 1)
  ) {
    let slashes = 0;
    while (bytes[close - 1 - slashes] === JSON_BYTES.backslash) slashes++;
    if (slashes % 2 === 0) return close;
  }
  return bytes.length;
}

/** Whether the string token `bytes[start..end]` (quotes included) is the key `content`, escapes read. */
function namesContent(bytes: Uint8Array, start: number, end: number): boolean {
  if (start < 0 || end >= bytes.length) return false;
  const token = bytes.subarray(start + 1, end);
  if (token.indexOf(JSON_BYTES.backslash) < 0) return Buffer.compare(token, CONTENT) === 0;
  try {
    return JSON.parse(Buffer.from(bytes.subarray(start, end + 1)).toString('utf8')) === 'content';
  } catch {
    return false;
  }
}
