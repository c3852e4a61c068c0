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

const CONTENT_KEY = Buffer.from('"content":[');
/** Where one record of the array ends and the next begins, in compact JSON. */
const RECORD_CUT = Buffer.from('},{"');
const OPEN_BRACE = 0x7b;
const COMMA = 0x2c;

/**
 * `JSON.parse` of a UTF-8 body: always the value, or the error, that `JSON.parse(bytes.toString('utf8'))`
 * gives. A large page (`{..., "content": [records], ...}`, compact) is parsed as pieces of about
 * {@link PIECE_BYTES}, each decoded and parsed on its own and the records joined in order, when every
 * piece parses; anything else is parsed whole. Why the pieces give the same value:
 *
 * - The head (the bytes up to the array's `[`) followed by `]}` must parse, and the byte before the key
 *   must be `{` or `,`: so the `[` opens the array of the top-level key `content`, and no other.
 * - Each piece between two cuts, bracketed, must parse as an array: so it is a list of whole values. A cut
 *   (`},{"`) that falls inside a string or inside a record leaves a bracket or a quote unclosed in the
 *   pieces on both sides of it, and one of them fails to parse.
 * - The head followed by the last piece (the last records, the `]` and the rest of the envelope) must
 *   parse, and that piece must not name `content` again (a later duplicate key would win).
 *
 * JSON's grammar reads each piece the same way inside the whole text, so the whole parses to the last
 * parse with the earlier pieces' records in front of its own. Cuts fall on ASCII bytes, so each piece
 * decodes as it does within the whole. When a piece fails, the whole is parsed, and its error is thrown.
 */
export function parseJsonBytes(bytes: Buffer, pieceBytes = PIECE_BYTES): unknown {
  if (bytes.length >= 2 * pieceBytes) {
    const page = parseInPieces(bytes, pieceBytes);
    if (page !== undefined) return page;
  }
  return JSON.parse(bytes.toString('utf8'));
}

/**
 * The page parsed in pieces of about `pieceBytes` (see {@link parseJsonBytes}), or undefined where that does
 * not apply: no top-level `content` array within the first bytes, no cut, or a piece that does not parse.
 */
export function parseInPieces(bytes: Buffer, pieceBytes: number): unknown {
  const key = bytes.indexOf(CONTENT_KEY);
  if (key < 1 || key > MAX_HEAD_BYTES) return undefined;
  const before = bytes[key - 1];
  if (before !== OPEN_BRACE && before !== COMMA) return undefined;
  const from = key + CONTENT_KEY.length;
  const head = bytes.toString('utf8', 0, from);
  const probe = tryParse(`${head}]}`) as { content?: unknown } | undefined;
  if (!Array.isArray(probe?.content) || probe.content.length !== 0) return undefined;
  const records: unknown[] = [];
  let start = from;
  for (;;) {
    const cut = bytes.indexOf(RECORD_CUT, start + pieceBytes);
    if (cut < 0) break;
    const piece = tryParse(`[${bytes.toString('utf8', start, cut + 1)}]`);
    if (!Array.isArray(piece)) return undefined;
    for (const record of piece) records.push(record);
    start = cut + 2;
  }
  if (records.length === 0 || bytes.indexOf('"content"', start) >= 0) return undefined;
  const page = tryParse(head + bytes.toString('utf8', start)) as { content?: unknown } | undefined;
  if (!Array.isArray(page?.content)) return undefined;
  for (const record of page.content) records.push(record);
  page.content = records;
  return page;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
