import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ID_BYTES, IdSet, MAX_PRESIZED_IDS, presizedFor } from '../../lib/foundation/ids/idSet.ts';

const hexId = fc.uint8Array({ minLength: ID_BYTES, maxLength: ID_BYTES }).map(toHex);

function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

describe('IdSet', () => {
  it('behaves as a Set of lowercase hex ids for any sequence of adds and lookups, across growth', () => {
    // Ids drawn from a small pool so that repeats, and ids sharing their low word (one table slot), occur.
    const pool = fc.array(hexId, { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(
        pool,
        fc.array(fc.tuple(fc.boolean(), fc.nat(), fc.boolean(), fc.boolean()), { maxLength: 300 }),
        fc.integer({ min: 0, max: 64 }),
        (ids, ops, expected) => {
          const collide = ids.map((id, i) => (i % 2 === 0 ? id : `${id.slice(0, 24)}${ids[0]?.slice(24)}`));
          const set = new IdSet(expected);
          const model = new Set<string>();
          for (const [isAdd, pick, upper, asBytes] of ops) {
            const id = collide[pick % collide.length] as string;
            const given = asBytes ? Uint8Array.from(Buffer.from(id, 'hex')) : upper ? id.toUpperCase() : id;
            if (isAdd) {
              expect(set.add(given)).toBe(!model.has(id));
              model.add(id);
            } else {
              expect(set.has(given)).toBe(model.has(id));
            }
            expect(set.size).toBe(model.size);
          }
          expect([...set.values()].sort()).toEqual([...model].sort());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads one id text given to several sets in turn as that id, whatever came between', () => {
    const a = `${'a'.repeat(31)}1`;
    const b = `${'b'.repeat(31)}2`;
    const walk = new IdSet();
    const partition = new IdSet();
    expect(walk.add(a)).toBe(true);
    expect(partition.add(a)).toBe(true);
    // A malformed text fails part-way through its words: the next look-up of `a` still reads `a`.
    expect(() => walk.add(`${'c'.repeat(20)}zz${'c'.repeat(10)}`)).toThrow(/32 hex characters/);
    expect(partition.has(a)).toBe(true);
    expect(partition.has(b)).toBe(false);
    // An id given as bytes between two texts leaves the text's words as they were.
    expect(walk.add(Uint8Array.from(Buffer.from(b, 'hex')))).toBe(true);
    expect(partition.add(a)).toBe(false);
    expect(partition.add(b)).toBe(true);
    expect([...walk.values()].sort()).toEqual([a, b]);
    expect([...partition.values()].sort()).toEqual([a, b]);
  });

  it('reads ids from hex bytes where they lie and writes its text from its words, in any chunk size', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(hexId, { maxLength: 120 }),
        fc.integer({ min: 1, max: 9 }),
        (ids, perChunk) => {
          const text = Buffer.from(
            `..${ids.map((id, i) => (i % 3 === 0 ? id.toUpperCase() : id)).join('\n')}`,
          );
          const set = new IdSet();
          for (let i = 0; i < ids.length; i++) expect(set.addHex(text, 2 + i * 33)).toBe(true);
          expect(set.size).toBe(ids.length);
          if (ids.length > 0) expect(set.addHex(text, 2)).toBe(false);
          const chunks = [...set.hexLines(perChunk)];
          for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(perChunk * 33);
          expect(Buffer.concat(chunks).toString('latin1')).toBe([...set.values()].join('\n'));
          expect([...set.values()].sort()).toEqual([...ids].sort());
        },
      ),
      { numRuns: 200 },
    );
    expect(() => new IdSet().addHex(Buffer.from('zz'.repeat(16)), 0)).toThrow(/32 hex characters/);
    expect(() => new IdSet().addHex(Buffer.from('ab'.repeat(16)), 1)).toThrow(/32 hex characters/);
  });

  it('writes every id it held when its text began, though it grows while the chunks are taken', () => {
    const ids = Array.from({ length: 500 }, (_, i) => createHash('md5').update(`held ${i}`).digest('hex'));
    const set = new IdSet(500);
    for (const id of ids) set.add(id);
    const lines = set.hexLines(100);
    const chunks = [lines.next().value as Uint8Array];
    const before = set.byteLength;
    for (let i = 0; i < 2_000; i++) set.add(createHash('md5').update(`later ${i}`).digest('hex'));
    expect(set.byteLength).toBeGreaterThan(before);
    for (const chunk of lines) chunks.push(chunk);
    const written = new Set(Buffer.concat(chunks).toString('latin1').split('\n'));
    for (const id of ids) expect(written.has(id)).toBe(true);
  });

  it('holds a million ids in a few tens of MiB of typed arrays', () => {
    const set = new IdSet();
    const bytes = new Uint8Array(ID_BYTES);
    const view = new DataView(bytes.buffer);
    let added = 0;
    for (let i = 0; i < 1_000_000; i++) {
      view.setUint32(0, i);
      view.setUint32(12, Math.imul(i, 2654435761) >>> 0);
      if (set.add(bytes)) added++;
    }
    expect(added).toBe(1_000_000);
    expect(set.size).toBe(1_000_000);
    view.setUint32(0, 999_999);
    view.setUint32(12, Math.imul(999_999, 2654435761) >>> 0);
    expect(set.has(bytes)).toBe(true);
    expect(set.add(bytes)).toBe(false);
    // At most 1.5 × 1M / 0.7 slots of 17 bytes after the last growth (about 24–36 bytes an id), against
    // ~100 for a string in a Set; sized up front, 24 bytes an id.
    expect(set.byteLength).toBeLessThanOrEqual(37 * 1_000_000);
    expect(new IdSet(1_000_000).byteLength).toBeLessThanOrEqual(25 * 1_000_000);
  });

  it.each([
    ['a 31-character string', 'a'.repeat(31)],
    ['a string with a non-hex character', `${'a'.repeat(31)}g`],
    ['a 64-character digest', 'b'.repeat(64)],
    ['a 15-byte buffer', new Uint8Array(15)],
  ])('rejects %s with INTERNAL', (_label, id) => {
    const set = new IdSet();
    expect(() => set.add(id)).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    expect(() => set.has(id)).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });
});

describe('IdSet filled in the order of another set', () => {
  it('keeps its runs of taken slots short all the way, growing from its default size', () => {
    const from = new IdSet(100_000);
    for (let i = 0; i < 100_000; i++) from.add(randomId(i));
    const into = new IdSet();
    let longest = 0;
    for (const id of from.values()) {
      into.add(id);
      // Checked as the set fills: a table order replayed into a smaller table piles the first ids into
      // one run of taken slots, which each later insert probes to its end (quadratic).
      if (into.size % 10_000 === 0) longest = Math.max(longest, into.longestRun());
    }
    expect(into.size).toBe(100_000);
    expect(longest).toBeLessThan(200);
    const copy = new IdSet();
    copy.addAll(into);
    expect(copy.size).toBe(100_000);
    expect(copy.longestRun()).toBeLessThan(200);
  });
});

/** A fixed, well-spread 128-bit id for `i` (SHA-256 of its number). */
function randomId(i: number): string {
  return createHash('sha256').update(String(i)).digest('hex').slice(0, 32);
}

describe('presizedFor', () => {
  it.each([
    [0, 1024],
    [-5, 1024],
    [Number.NaN, 1024],
    [1.5, 1024],
    [50_000, 50_000],
    [MAX_PRESIZED_IDS, MAX_PRESIZED_IDS],
    [1e12, MAX_PRESIZED_IDS],
  ])('sizes a set for a hint of %s ids as for %s', (hint, size) => {
    expect(presizedFor(hint)).toBe(size);
  });
});
