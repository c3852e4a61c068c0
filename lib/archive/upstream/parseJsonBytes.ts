import { ArchiverError } from '../../foundation/index.ts';
import { contentHoldsMoreThan } from './contentHoldsMoreThan.ts';
import { isJsonWhitespace, JSON_BYTES } from './jsonBytes.ts';

/**
 * Bytes of a body at or above which {@link parseJsonBytes} tries the page's records in pieces; also about the
 * size of each piece. A piece decoded from up to this many bytes is a string V8 keeps in its young generation
 * (up to 64 KiB of two-byte text), where the whole body's text (1.2 MB for a 2,000-record page with
 * non-ASCII text) is a large object: allocating and collecting that one string cost more than decoding and
 * parsing the page (bench/PROFILE.md).
 */
export const PIECE_BYTES = 24 * 1024;

/** The most bytes before the records' array that the pieces' path reads: a page's envelope fields. */
const MAX_HEAD_BYTES = 4 * 1024;

const CONTENT_NAME = Buffer.from('"content"');
/**
 * Any JSON string token that names `content`: each letter as itself or as its `\u` escape (hex in either
 * case). A duplicate key written so is the same key to `JSON.parse`.
 */
const CONTENT_TOKEN =
  /"(?:c|\\u0063)(?:o|\\u006[fF])(?:n|\\u006[eE])(?:t|\\u0074)(?:e|\\u0065)(?:n|\\u006[eE])(?:t|\\u0074)"/;

/**
 * `JSON.parse` of a UTF-8 body: always the value, or the error, that `JSON.parse(bytes.toString('utf8'))`
 * gives. A large page (`{..., "content": [records], ...}`, compact or pretty-printed) is parsed as pieces of
 * about {@link PIECE_BYTES}, each decoded and parsed on its own and the records joined in order, when every
 * piece parses; anything else is parsed whole. Why the pieces give the same value:
 *
 * - The head (the bytes up to the array's `[`) followed by `]}` must parse, and the byte before the key
 *   (whitespace apart) must be `{` or `,`: so the `[` opens the array of the top-level key `content`, and no
 *   other.
 * - A cut is a `}`, then a `,` and a `{`, with only JSON whitespace between them. Each piece between two
 *   cuts, bracketed, must parse as an array: so it is a list of whole values. A cut that falls inside a
 *   string or inside a record leaves a bracket or a quote unclosed in the pieces on both sides of it, and
 *   one of them fails to parse.
 * - The head followed by the last piece (the last records, the `]` and the rest of the envelope) must
 *   parse, and that piece must not name `content` again, escaped or not (a later duplicate key would win).
 *
 * JSON's grammar reads each piece the same way inside the whole text, so the whole parses to the last
 * parse with the earlier pieces' records in front of its own. Cuts fall on ASCII bytes, so each piece
 * decodes as it does within the whole. When a piece fails, the whole is parsed, and its error is thrown.
 *
 * With `maxItems`, a body whose top-level `content` array holds more items than that is refused
 * (`BODY_TOO_LARGE`, `details.items` the items counted) as soon as that is known, not after it is parsed:
 * the pieces' path stops at the piece that passes it, and a large body parsed whole has its items counted
 * from its bytes first ({@link contentHoldsMoreThan}). A body with any top-level `content` array past the
 * cap may be refused even where it is not valid JSON, or a later duplicate key would replace that array:
 * no page of the size asked for looks like either.
 */
export function parseJsonBytes(bytes: Buffer, options: ParseOptions = {}): unknown {
  const pieceBytes = options.pieceBytes ?? PIECE_BYTES;
  const maxItems = options.maxItems ?? Number.POSITIVE_INFINITY;
  let json: unknown;
  if (bytes.length >= 2 * pieceBytes) {
    json = parseInPieces(bytes, pieceBytes, maxItems);
    if (json === undefined && maxItems !== Number.POSITIVE_INFINITY && contentHoldsMoreThan(bytes, maxItems))
      throw tooManyItems(maxItems + 1, maxItems, false);
  }
  json ??= JSON.parse(bytes.toString('utf8'));
  const content = (json as { content?: unknown } | null)?.content;
  if (Array.isArray(content) && content.length > maxItems) throw tooManyItems(content.length, maxItems, true);
  return json;
}

export interface ParseOptions {
  /** About the bytes of each piece (default {@link PIECE_BYTES}); a body under twice this is parsed whole. */
  pieceBytes?: number;
  /** The most items the body's top-level `content` array may hold; default no limit. */
  maxItems?: number;
}

function tooManyItems(items: number, maxItems: number, exact: boolean): ArchiverError {
  return new ArchiverError(
    'BODY_TOO_LARGE',
    `the page holds ${exact ? '' : 'at least '}${items} items, more than the ${maxItems} asked for`,
    { details: { items, maxItems, counted: exact ? 'all' : 'until past the limit' } },
  );
}

/**
 * The page parsed in pieces of about `pieceBytes` (see {@link parseJsonBytes}), or undefined where that does
 * not apply: no top-level `content` array within the first bytes, no cut, or a piece that does not parse.
 * Throws `BODY_TOO_LARGE` once the pieces parsed hold more than `maxItems` records.
 */
export function parseInPieces(
  bytes: Buffer,
  pieceBytes: number,
  maxItems = Number.POSITIVE_INFINITY,
): unknown {
  const key = bytes.indexOf(CONTENT_NAME);
  if (key < 1 || key > MAX_HEAD_BYTES) return undefined;
  const before = bytes[skipWhitespaceBack(bytes, key - 1)];
  if (before !== JSON_BYTES.openBrace && before !== JSON_BYTES.comma) return undefined;
  const colon = skipWhitespace(bytes, key + CONTENT_NAME.length);
  if (bytes[colon] !== JSON_BYTES.colon) return undefined;
  const open = skipWhitespace(bytes, colon + 1);
  if (bytes[open] !== JSON_BYTES.openBracket) return undefined;
  const from = open + 1;
  const head = bytes.toString('utf8', 0, from);
  const probe = tryParse(`${head}]}`) as { content?: unknown } | undefined;
  if (!Array.isArray(probe?.content) || probe.content.length !== 0) return undefined;
  const records: unknown[] = [];
  let start = from;
  for (;;) {
    const close = recordCut(bytes, start + pieceBytes);
    if (close < 0) break;
    const piece = tryParse(`[${bytes.toString('utf8', start, close + 1)}]`);
    if (!Array.isArray(piece)) return undefined;
    for (const record of piece) records.push(record);
    if (records.length > maxItems) throw tooManyItems(records.length, maxItems, false);
    // The next piece starts at the next record's `{`.
    start = skipWhitespace(bytes, skipWhitespace(bytes, close + 1) + 1);
  }
  if (records.length === 0) return undefined;
  const tail = bytes.toString('utf8', start);
  if (CONTENT_TOKEN.test(tail)) return undefined;
  const page = tryParse(head + tail) as { content?: unknown } | undefined;
  if (!Array.isArray(page?.content)) return undefined;
  for (const record of page.content) records.push(record);
  page.content = records;
  return page;
}

/** Where the first cut at or after `from` begins: a `}` followed by `,` and `{`, whitespace apart; or -1. */
function recordCut(bytes: Buffer, from: number): number {
  for (
    let close = bytes.indexOf(JSON_BYTES.closeBrace, from);
    close >= 0;
    close = bytes.indexOf(JSON_BYTES.closeBrace, close + 1)
  ) {
    const comma = skipWhitespace(bytes, close + 1);
    if (bytes[comma] === JSON_BYTES.comma && bytes[skipWhitespace(bytes, comma + 1)] === JSON_BYTES.openBrace)
      return close;
  }
  return -1;
}

/** The first index at or after `at` that is not whitespace (the length, past the end). */
function skipWhitespace(bytes: Buffer, at: number): number {
  let i = at;
  while (i < bytes.length && isJsonWhitespace(bytes[i])) i++;
  return i;
}

/** The last index at or before `at` that is not whitespace (-1, before the start). */
function skipWhitespaceBack(bytes: Buffer, at: number): number {
  let i = at;
  while (i >= 0 && isJsonWhitespace(bytes[i])) i--;
  return i;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
