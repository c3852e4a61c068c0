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
    expect(() => parseJsonBytes(bytes, pieceBytes)).toThrow((error as Error).message);
    return;
  }
  const parsed = parseJsonBytes(bytes, pieceBytes);
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

  it('parses a pretty-printed page whole (no compact cut), to the same value', () => {
    const text = JSON.stringify({ ...documented, content: Array(200).fill(RECORD) }, null, 2);
    const bytes = Buffer.from(text);
    expect(parseInPieces(bytes, 1024)).toBeUndefined();
    expectAsWhole(bytes, 1024);
  });

  it('gives a later duplicate `content` key its due: the whole parse, as JSON.parse does', () => {
    const records = Array(100).fill(RECORD);
    const text = objectText([
      ['content', JSON.stringify(records)],
      ['content', '[1,2]'],
    ]);
    const bytes = Buffer.from(text);
    expect(parseInPieces(bytes, 256)).toBeUndefined();
    expect(parseJsonBytes(bytes, 256)).toStrictEqual({ content: [1, 2] });
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
