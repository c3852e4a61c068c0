import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contentHoldsMoreThan } from '../../lib/archive/upstream/contentHoldsMoreThan.ts';
import { PIECE_BYTES, parseJsonBytes } from '../../lib/archive/upstream/parseJsonBytes.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

/** Strings a structural scan could be fooled by: quotes, escapes, brackets and commas inside text. */
const trickyString = fc
  .array(fc.constantFrom('"', '\\', '\\\\', ',', '[', ']', '{', '}', 'content', 'é', '😀', 'a', ' '), {
    maxLength: 6,
  })
  .map((parts) => parts.join(''));

const item = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  trickyString,
  fc.dictionary(trickyString, fc.oneof(trickyString, fc.array(trickyString, { maxLength: 3 })), {
    maxKeys: 3,
  }),
);

/** A key's text: tricky, `content`, or `content` spelled with escapes. */
const keyText = fc.oneof(
  trickyString.map((k) => JSON.stringify(k)),
  fc.constantFrom('"content"', '"cont\\u0065nt"', '"\\u0063\\u006F\\u006E\\u0074\\u0065\\u006E\\u0074"'),
);

const gap = fc.constantFrom('', ' ', '\n  ', '\r\n\t');

/**
 * A top-level object's entries, any of them a `content` key (duplicates too) with a list of items or any
 * other value, written with whitespace between tokens; and `maxItems`.
 */
const body = fc
  .record({
    entries: fc.array(fc.tuple(keyText, fc.oneof(fc.array(item, { maxLength: 7 }), item)), { maxLength: 4 }),
    gaps: fc.tuple(gap, gap, gap),
    maxItems: fc.integer({ min: 0, max: 6 }),
  })
  .map(({ entries, gaps: [g0, g1, g2], maxItems }) => ({
    text: `{${g0}${entries
      .map(([k, v]) =>
        Array.isArray(v)
          ? `${k}${g1}:${g2}[${g0}${v.map((x) => JSON.stringify(x)).join(`${g1},${g2}`)}${g0}]`
          : `${k}:${JSON.stringify(v)}`,
      )
      .join(`,${g1}`)}${g2}}`,
    // Any top-level `content` entry whose list passes the cap, whatever its spelling.
    past: entries.some(([k, v]) => JSON.parse(k) === 'content' && Array.isArray(v) && v.length > maxItems),
    maxItems,
  }));

describe('contentHoldsMoreThan', () => {
  it('tells whether any top-level content list passes the cap, for any spelling, spacing and items', () => {
    fc.assert(
      fc.property(body, ({ text, past, maxItems }) => {
        expect(contentHoldsMoreThan(Buffer.from(text), maxItems)).toBe(past);
      }),
      { numRuns: 1000, seed: 11 },
    );
  });

  it('counts only the top-level key, not a nested content list or a string that looks like one', () => {
    const nested = '{"page":{"content":[1,2,3,4]},"content":[1]}';
    expect(contentHoldsMoreThan(Buffer.from(nested), 2)).toBe(false);
    const inString = '{"note":"\\"content\\":[1,2,3,4]","content":[]}';
    expect(contentHoldsMoreThan(Buffer.from(inString), 2)).toBe(false);
    expect(contentHoldsMoreThan(Buffer.from('[{"content":[1,2,3]}]'), 0)).toBe(false);
    expect(contentHoldsMoreThan(Buffer.from('{"content":[[1,2,3],{"a":[4,5]},"6,7"]}'), 2)).toBe(true);
    expect(contentHoldsMoreThan(Buffer.from('{"content":[[1,2,3],{"a":[4,5]},"6,7"]}'), 3)).toBe(false);
  });
});

describe('parseJsonBytes with a cap on the items', () => {
  /** Whether parseJsonBytes refused the text as holding too many items; otherwise its value. */
  function capped(text: string, maxItems: number, pieceBytes: number): unknown {
    try {
      return { value: parseJsonBytes(Buffer.from(text), { maxItems, pieceBytes }) };
    } catch (error) {
      if (ArchiverError.is(error, 'BODY_TOO_LARGE')) return 'refused';
      throw error;
    }
  }

  it('refuses a page whose content passes the cap, and gives any other what JSON.parse gives', () => {
    fc.assert(
      fc.property(body, fc.integer({ min: 0, max: 120 }), ({ text, past, maxItems }, pieceBytes) => {
        const whole = JSON.parse(text) as { content?: unknown };
        const result = capped(text, maxItems, pieceBytes);
        if (Array.isArray(whole.content) && whole.content.length > maxItems) expect(result).toBe('refused');
        else if (past) {
          // An earlier duplicate key past the cap may refuse a page that JSON.parse reads as under it.
          if (result !== 'refused') expect(result).toStrictEqual({ value: whole });
        } else expect(result).toStrictEqual({ value: whole });
      }),
      { numRuns: 1000, seed: 12 },
    );
  });
});

describe('a hostile page body of tiny items', () => {
  const MiB = 1024 * 1024;
  const envelope = (items: string) => `{"totalElements":2000,"size":2000,"content":[${items}],"number":0}`;
  /** `item` repeated, comma-joined, to about `bytes`. */
  const many = (item: string, bytes: number) =>
    Array(Math.floor(bytes / (item.length + 1)))
      .fill(item)
      .join(',');

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    ['empty objects (cut into pieces)', '{}'],
    ['empty lists (no cut: counted from the bytes)', '[]'],
    ['one-digit numbers', '7'],
    ['strings holding commas and brackets', '"},{],["'],
  ])('is refused as BODY_TOO_LARGE before any large text is parsed: %s', (_shape, item) => {
    const bytes = Buffer.from(envelope(many(item, 2 * MiB)));
    const parse = vi.spyOn(JSON, 'parse');
    let error: unknown;
    try {
      parseJsonBytes(bytes, { maxItems: 2000 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ArchiverError);
    expect(error).toMatchObject({ code: 'BODY_TOO_LARGE', details: { maxItems: 2000 } });
    expect((error as ArchiverError).message).toMatch(
      /^the page holds at least \d+ items, more than the 2000 asked for$/,
    );
    expect((error as ArchiverError).details?.items).toBeGreaterThan(2000);
    // No text near the body's size was ever given to JSON.parse: at most a piece and the envelope.
    const longest = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
    expect(longest).toBeLessThan(2 * PIECE_BYTES);
  });

  it('takes a page of exactly the items asked for, in pieces or whole, and refuses one more', () => {
    const record = (i: number) => JSON.stringify({ id: i, note: 'x'.repeat(200) });
    const records = (n: number) => Array.from({ length: n }, (_, i) => record(i)).join(',');
    for (const pieceBytes of [PIECE_BYTES, 10 * MiB]) {
      const page = parseJsonBytes(Buffer.from(envelope(records(2000))), { maxItems: 2000, pieceBytes });
      expect((page as { content: unknown[] }).content).toHaveLength(2000);
      expect(() =>
        parseJsonBytes(Buffer.from(envelope(records(2001))), { maxItems: 2000, pieceBytes }),
      ).toThrow(/^the page holds 2001 items, more than the 2000 asked for$/);
    }
  });
});
