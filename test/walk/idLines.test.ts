import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../lib/ids/idSet.ts';
import { addIdLines, gzipIdLines, idSetOfLines } from '../../lib/walk/idLines.ts';

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

  it('fail on a line that is not an id', async () => {
    await expect(idSetOfLines(gzipSync('not-an-id\n'))).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});
