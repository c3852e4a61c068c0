import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addIdLines, gzipIdLines, idSetOfLines } from '../../lib/archive/walk/idLines.ts';
import { IdSet } from '../../lib/foundation/ids/idSet.ts';

const hexId = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex'));

describe('gzipIdLines and addIdLines', () => {
  it('round-trip any set of ids, across chunk boundaries, as the hex lines earlier versions wrote', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(hexId, { maxLength: 300 }), async (ids) => {
        const bytes = await gzipIdLines(ids);
        expect(gunzipSync(bytes).toString('latin1')).toBe(ids.join('\n'));
        const back = await idSetOfLines(bytes);
        expect([...back].sort()).toEqual([...ids].sort());
      }),
      { numRuns: 50 },
    );
  });

  it('read a file written whole (the format before chunks), more than one chunk long', async () => {
    // Ids are keyed hashes, spread uniformly (the set picks slots by their low bits).
    const ids = Array.from({ length: 70_000 }, (_, i) => createHash('md5').update(String(i)).digest('hex'));
    const into = new IdSet();
    await addIdLines(gzipSync(ids.join('\n')), into);
    expect(into.size).toBe(70_000);
    expect(into.has(ids[69_999] as string)).toBe(true);
    expect((await gzipIdLines(ids)).length).toBeGreaterThan(0);
  });

  it('write a set from its words: the text of its ids joined by newlines, read back whole', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(hexId, { maxLength: 300 }), async (list) => {
        const ids = new IdSet();
        for (const id of list) ids.add(id);
        const bytes = await gzipIdLines(ids);
        expect(gunzipSync(bytes).toString('latin1')).toBe([...ids].join('\n'));
        const back = await idSetOfLines(bytes);
        expect(back.size).toBe(list.length);
        for (const id of list) expect(back.has(id)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('read lines cut anywhere by the chunks decompression hands over, blank lines and a last newline skipped', async () => {
    const ids = Array.from({ length: 3_000 }, (_, i) => createHash('md5').update(`x${i}`).digest('hex'));
    // A level-0 stream of 3,000 lines arrives in several chunks of 16 KiB, each cutting a line somewhere.
    const text = `\n${ids.join('\n\n')}\n`;
    const into = new IdSet();
    await addIdLines(gzipSync(text, { level: 0 }), into);
    expect(into.size).toBe(3_000);
    for (const id of ids) expect(into.has(id)).toBe(true);
  });

  it('fail on a line that is not an id', async () => {
    await expect(idSetOfLines(gzipSync('not-an-id\n'))).rejects.toMatchObject({ code: 'INTERNAL' });
    const id = 'ab'.repeat(16);
    // Too long, cut by a chunk's end; not hex; a character past ASCII; a last line too short.
    await expect(
      idSetOfLines(gzipSync(`${id}\n${'a'.repeat(20_000)}\n`, { level: 0 })),
    ).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    await expect(idSetOfLines(gzipSync(`${id}\n${'g'.repeat(32)}`))).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    await expect(
      idSetOfLines(gzipSync(Buffer.concat([Buffer.from(`${'a'.repeat(31)}`), Buffer.from([0xe9])]))),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(idSetOfLines(gzipSync(`${id}\n${id.slice(1)}`))).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});
