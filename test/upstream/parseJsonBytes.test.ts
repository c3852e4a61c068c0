import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PIECE_BYTES, parseInPieces, parseJsonBytes } from '../../lib/archive/upstream/parseJsonBytes.ts';

const documented = JSON.parse(
  readFileSync(new URL('../fixtures/history-documented.json', import.meta.url), 'utf8'),
) as Record<string, unknown> & { content: Record<string, unknown>[] };
const RECORD = documented.content[0] as Record<string, unknown>;

/** An object's text from its entries, in order, duplicates kept (`JSON.stringify` cannot write those). */
function objectText(entries: readonly (readonly [string, string])[]): string {
  return `{${entries.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(',')}}`;
}

/** The documented envelope, compact, in its own key order, around `records`. */
function documentedPage(records: readonly unknown[]): Buffer {
  return Buffer.from(JSON.stringify({ ...documented, content: records }));
}

/** Asserts `parseJsonBytes` gives what `JSON.parse` of the decoded text gives: the value, or the error. */
function expectAsWhole(bytes: Buffer, pieceBytes: number): void {
  let whole: unknown;
  try {
    whole = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    expect(() => parseJsonBytes(bytes, { pieceBytes })).toThrow((error as Error).message);
    return;
  }
  const parsed = parseJsonBytes(bytes, { pieceBytes });
  expect(parsed).toStrictEqual(whole);
  // Key order too, which toStrictEqual does not see.
  expect(JSON.stringify(parsed)).toBe(JSON.stringify(whole));
}

/** Texts made of the pieces a cut or a key search could be fooled by. */
const trickyText = fc
  .array(
    fc.constantFrom(
      '},{"',
      '"content":[',
      ',"content":[',
      '{',
      '}',
      '[',
      ']',
      '"',
      '\\',
      ',',
      ':',
      'é',
      '中',
      '😀',
      'a',
      ' ',
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

const value: fc.Arbitrary<unknown> = fc.oneof(
  trickyText,
  fc.integer(),
  fc.constant(null),
  fc.constant(-0),
  fc.array(fc.dictionary(trickyText, trickyText, { maxKeys: 2 }), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** JSON whitespace as a pretty printer, or a hostile one, puts it between tokens. */
const gap = fc.constantFrom('', ' ', '\n  ', '\r\n\t', ' \n ');

/** A key's text: any tricky name, `content`, or `content` spelled with escapes. */
const keyText = fc.oneof(
  trickyText.map((k) => JSON.stringify(k)),
  fc.constantFrom('"content"', '"cont\\u0065nt"', '"\\u0063\\u006F\\u006E\\u0074\\u0065\\u006E\\u0074"'),
);

const record = fc.dictionary(fc.oneof(trickyText, fc.constant('content')), value, { maxKeys: 5 });

/** A page's text: envelope fields around the `content` array at any place, some duplicated or nested. */
const pageText = fc
  .record({
    records: fc.array(record, { maxLength: 30 }),
    before: fc.array(fc.tuple(fc.oneof(trickyText, fc.constant('content')), value), { maxLength: 3 }),
    after: fc.array(fc.tuple(fc.oneof(trickyText, fc.constant('content')), value), { maxLength: 3 }),
  })
  .map(({ records, before, after }) =>
    objectText([
      ...before.map(([k, v]) => [k, JSON.stringify(v)] as const),
      ['content', `[${records.map((r) => JSON.stringify(r)).join(',')}]`],
      ...after.map(([k, v]) => [k, JSON.stringify(v)] as const),
    ]),
  );

/** Records and keys with nothing tricky in them, so that many spaced pages take the pieces' path. */
const plainRecord = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
const plainKey = fc.constantFrom('"total"', '"page"', '"hasMore"');

/** A page's text with whitespace between its tokens and keys spelled with escapes. */
const spacedPageText = fc
  .record({
    records: fc.array(fc.oneof(record, plainRecord), { maxLength: 30 }),
    indent: fc.constantFrom(0, 1, 2, '\t'),
    before: fc.array(fc.tuple(keyText, value), { maxLength: 2 }),
    after: fc.array(
      fc.tuple(fc.oneof({ arbitrary: keyText, weight: 1 }, { arbitrary: plainKey, weight: 3 }), value),
      {
        maxLength: 2,
      },
    ),
    gaps: fc.tuple(gap, gap, gap, gap, gap, gap, gap, gap),
  })
  .map(({ records, indent, before, after, gaps }) => {
    const [g0, g1, g2, g3, g4, g5, g6, g7] = gaps;
    const field = ([k, v]: readonly [string, unknown]) => `${k}${g0}:${g1}${JSON.stringify(v, null, indent)}`;
    const list = records.map((r) => JSON.stringify(r, null, indent)).join(`${g2},${g3}`);
    const fields = [
      ...before.map(field),
      `${g4}"content"${g5}:${g6}[${g7}${list}${g7}]`,
      ...after.map(field),
    ];
    return `{${g7}${fields.join(`${g1},${g3}`)}${g2}}`;
  });

describe('parseJsonBytes', () => {
  it('parses a documented page of records in pieces, the records in their order', () => {
    const records = Array.from({ length: 600 }, (_, i) => ({ ...RECORD, user_email: `u${i}@ex.com` }));
    const bytes = documentedPage(records);
    expect(bytes.length).toBeGreaterThan(2 * PIECE_BYTES);
    const pieces = parseInPieces(bytes, PIECE_BYTES) as { content: unknown[] } | undefined;
    expect(pieces).toBeDefined();
    expect(pieces).toStrictEqual(JSON.parse(bytes.toString('utf8')));
    expect(pieces?.content.map((r) => (r as { user_email: string }).user_email)).toEqual(
      records.map((r) => r.user_email),
    );
  });

  it('parses non-ASCII records in pieces, each piece decoded as the whole would be', () => {
    const names = ['Δημήτρης', 'Дмитрий', '张伟', 'émile', '😀'];
    const records = Array.from({ length: 400 }, (_, i) => ({
      ...RECORD,
      user_email: `${names[i % names.length]}${i}@ex.com`,
    }));
    const bytes = documentedPage(records);
    expect(parseInPieces(bytes, 1024)).toBeDefined();
    expectAsWhole(bytes, 1024);
  });

  it('reads invalid UTF-8 inside a record as the whole decode does', () => {
    const bytes = documentedPage(Array.from({ length: 50 }, () => ({ ...RECORD, user_email: 'XXXX' })));
    const at = bytes.indexOf('XXXX', bytes.length / 2);
    bytes[at] = 0xe2; // a three-byte sequence cut short
    bytes[at + 1] = 0x82;
    bytes[at + 2] = 0xff; // never valid in UTF-8
    expect(parseInPieces(bytes, 200)).toBeDefined();
    expectAsWhole(bytes, 200);
  });

  it('parses pretty-printed pages in pieces too, as JSON.stringify and Jackson indent them', () => {
    const records = Array.from({ length: 200 }, (_, i) => ({ ...RECORD, user_email: `u${i}@ex.com` }));
    const page = { ...documented, content: records };
    const twoSpaces = JSON.stringify(page, null, 2);
    const tabs = JSON.stringify(page, null, '\t').replaceAll('\n', '\r\n');
    // Jackson's default pretty printer: `"key" : value`, and records joined by `}, {`.
    const jackson = twoSpaces.replaceAll('": ', '" : ').replaceAll(/\},\s*\{/g, '}, {');
    expect(jackson).toContain('"content" : [');
    for (const text of [twoSpaces, tabs, jackson]) {
      const bytes = Buffer.from(text);
      const pieces = parseInPieces(bytes, 1024) as { content: unknown[] } | undefined;
      expect(pieces?.content).toHaveLength(200);
      expectAsWhole(bytes, 1024);
    }
  });

  it('gives a later duplicate `content` key written with escapes its due, as JSON.parse does', () => {
    const records = JSON.stringify(Array(100).fill(RECORD));
    for (const name of ['cont\\u0065nt', '\\u0063ontent', '\\u0063\\u006F\\u006e\\u0074ent']) {
      const text = `{"content":${records},"${name}":[1,2]}`;
      const bytes = Buffer.from(text);
      expect(parseInPieces(bytes, 256)).toBeUndefined();
      expectAsWhole(bytes, 256);
    }
    expect(
      parseJsonBytes(Buffer.from(`{"content":${records},"cont\\u0065nt":[1,2]}`), { pieceBytes: 256 }),
    ).toStrictEqual({
      content: [1, 2],
    });
  });

  it('gives a later duplicate `content` key its due: the whole parse, as JSON.parse does', () => {
    const records = Array(100).fill(RECORD);
    const text = objectText([
      ['content', JSON.stringify(records)],
      ['content', '[1,2]'],
    ]);
    const bytes = Buffer.from(text);
    expect(parseInPieces(bytes, 256)).toBeUndefined();
    expect(parseJsonBytes(bytes, { pieceBytes: 256 })).toStrictEqual({ content: [1, 2] });
  });

  it('takes only the top-level `content` key, not a nested one or one whose name ends in it', () => {
    const records = JSON.stringify(Array(60).fill(RECORD));
    const nested = objectText([
      ['meta', objectText([['content', records]])],
      ['content', '[]'],
    ]);
    const escapedName = objectText([
      ['x"content', records],
      ['content', '[]'],
    ]);
    // A top-level `content` written `"content" :` (not the searched bytes) beside the array that is found.
    const spacedBeforeEscaped = `{"content" :[],"x\\"content":${records}}`;
    const spacedBeforeNested = `{"content" :[1],"meta":{"content":${records}}}`;
    for (const text of [nested, escapedName, spacedBeforeEscaped, spacedBeforeNested]) {
      const bytes = Buffer.from(text);
      expect(parseInPieces(bytes, 256)).toBeUndefined();
      expectAsWhole(bytes, 256);
    }
  });

  it('cuts inside a string or a nested list never change the value', () => {
    const tricky = Array.from({ length: 80 }, (_, i) => ({
      ...RECORD,
      user_email: i % 2 ? 'a},{"b' : 'c"},{"content":[d',
      extra: [{ a: 1 }, { b: '},{"' }],
    }));
    const bytes = documentedPage(tricky);
    for (const pieceBytes of [0, 1, 50, 300, 1000]) expectAsWhole(bytes, pieceBytes);
  });

  it('throws the error JSON.parse throws for a body cut short or broken in any piece', () => {
    const bytes = documentedPage(Array(200).fill(RECORD));
    for (const end of [bytes.length - 1, Math.floor(bytes.length / 2), 3000, 10]) {
      expectAsWhole(bytes.subarray(0, end), 512);
    }
    const broken = Buffer.from(bytes);
    broken[Math.floor(broken.length / 3)] = 0x7d; // a stray `}` in the middle
    expectAsWhole(broken, 512);
    expectAsWhole(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), 512); // a BOM
  });

  it('gives what JSON.parse gives, for any page text and any piece size', () => {
    fc.assert(
      fc.property(pageText, fc.integer({ min: 0, max: 400 }), (text, pieceBytes) => {
        expectAsWhole(Buffer.from(text), pieceBytes);
        const pieces = parseInPieces(Buffer.from(text), pieceBytes);
        if (pieces !== undefined) expect(pieces).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 400 },
    );
  });

  it('gives what JSON.parse gives for any spaced page text, with keys spelled any way', () => {
    // The property below exercises the pieces' path, not only the whole parse: about one text in ten takes
    // it (21-38 of 300 over 40 seeds). A fixed seed, so the count is the same every run.
    const taken = fc
      .sample(spacedPageText, { numRuns: 300, seed: 7 })
      .filter((t) => parseInPieces(Buffer.from(t), 20) !== undefined);
    expect(taken.length).toBeGreaterThan(15);
    fc.assert(
      fc.property(spacedPageText, fc.integer({ min: 0, max: 200 }), (text, pieceBytes) => {
        expectAsWhole(Buffer.from(text), pieceBytes);
      }),
      { numRuns: 400 },
    );
  });

  it('gives what JSON.parse gives for a page text cut short or with a byte changed', () => {
    fc.assert(
      fc.property(
        pageText,
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 200 }),
        (text, at, byte, pieceBytes) => {
          const bytes = Buffer.from(text);
          const i = at % bytes.length;
          expectAsWhole(bytes.subarray(0, i), pieceBytes);
          const changed = Buffer.from(bytes);
          changed[i] = byte;
          expectAsWhole(changed, pieceBytes);
        },
      ),
      { numRuns: 400 },
    );
  });
});
