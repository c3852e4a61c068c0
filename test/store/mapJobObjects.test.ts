import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { mapJobObjects } from '../../lib/archive/store/mapJobObjects.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

const outcome = z.strictObject({ id: z.string(), ok: z.boolean() });

describe('mapJobObjects: the skeleton the fan-out and the verify job share', () => {
  it('writes an object as JSON and reads it back through its schema; an absent one is undefined', async () => {
    const objects = new MemoryObjectStore();
    await mapJobObjects.write(objects, 'job/a.json', { id: 'a', ok: true });
    expect(await mapJobObjects.read(objects, 'job/a.json', outcome)).toEqual({ id: 'a', ok: true });
    expect(await mapJobObjects.read(objects, 'job/b.json', outcome)).toBeUndefined();
  });

  it('refuses what is not JSON, and what its schema does not accept, naming the key (INTERNAL)', async () => {
    const objects = new MemoryObjectStore();
    await objects.put('job/torn.json', '{"id": "a", "ok"');
    await objects.put('job/other.json', '{"id": "a", "ok": "yes"}');
    const torn = await mapJobObjects.read(objects, 'job/torn.json', outcome).catch((e: unknown) => e);
    expect(ArchiverError.is(torn, 'INTERNAL') && torn.message).toBe('job/torn.json is not JSON');
    const other = await mapJobObjects.read(objects, 'job/other.json', outcome).catch((e: unknown) => e);
    expect(ArchiverError.is(other, 'INTERNAL') && other.message).toBe(
      'job/other.json is not what its job writes',
    );
  });

  it("reads the items the plan wrote (none when absent), and each item's outcome in the items' order", async () => {
    const objects = new MemoryObjectStore();
    expect(await mapJobObjects.items(objects, 'job/items.json', z.strictObject({ id: z.string() }))).toEqual(
      [],
    );
    const items = Array.from({ length: 40 }, (_, i) => ({ id: `i${i}` }));
    await mapJobObjects.write(objects, 'job/items.json', items);
    const read = await mapJobObjects.items(objects, 'job/items.json', z.strictObject({ id: z.string() }));
    expect(read).toEqual(items);
    // Every third item left no outcome (its worker was killed); item 7's outcome is torn.
    for (const item of read.filter((_, i) => i % 3 !== 0))
      await mapJobObjects.write(objects, `job/out/${item.id}.json`, { id: item.id, ok: true });
    await objects.put('job/out/i7.json', '{"id":');
    const keyOf = (item: { id: string }) => `job/out/${item.id}.json`;
    const missing = await mapJobObjects.outcomes(objects, read, keyOf, outcome, 'missing');
    expect(missing.map((o, i) => (o ? o.id : `none:${read[i]?.id}`))).toEqual(
      read.map((item, i) => (i % 3 === 0 || i === 7 ? `none:${item.id}` : item.id)),
    );
    // The verify job's rule: an unreadable outcome is an error, not an unchecked item.
    await expect(mapJobObjects.outcomes(objects, read, keyOf, outcome)).rejects.toThrow(
      'job/out/i7.json is not JSON',
    );
  });
});
