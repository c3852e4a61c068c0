import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite } from '../../devkit/startDynalite.ts';
import { ensureStateTable } from '../../lib/archive/state/dynamoStateStore.ts';
import { dynamoVersionedItems } from '../../lib/archive/state/dynamoVersionedItems.ts';
import { fileVersionedItems } from '../../lib/archive/state/fileVersionedItems.ts';
import type { VersionedItems } from '../../lib/archive/state/versionedItems.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { MemoryVersionedItems } from '../support/fakes/memoryVersionedItems.ts';
import { serverSlot } from '../support/serverPer.ts';

/** A backend of the primitive: a fresh, empty set of items per call (`scanLimit`: items a listing page). */
interface ItemsSubject {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  fresh(scanLimit?: number): Promise<VersionedItems>;
}

function dynamoSubject(): ItemsSubject {
  const { server: dynamo, start, stop } = serverSlot(startDynalite);
  let n = 0;
  return {
    name: 'dynamoVersionedItems',
    start,
    stop,
    fresh: async (scanLimit) => {
      const table = `items-${++n}`;
      await ensureStateTable(dynamo.client, table);
      return dynamoVersionedItems({ client: dynamo.client, table, ...(scanLimit ? { scanLimit } : {}) });
    },
  };
}

function fileSubject(): ItemsSubject {
  let root = '';
  let n = 0;
  return {
    name: 'fileVersionedItems',
    start: async () => {
      root = await mkdtemp(join(tmpdir(), 'ta-items-'));
    },
    stop: () => rm(root, { recursive: true, force: true }),
    fresh: async () => fileVersionedItems(join(root, `items-${++n}`)),
  };
}

function memorySubject(): ItemsSubject {
  return {
    name: 'MemoryVersionedItems',
    start: async () => {},
    stop: async () => {},
    fresh: async () => new MemoryVersionedItems(),
  };
}

const conflict = (e: unknown) => ArchiverError.is(e, 'CONFLICT') && e.details;

describe.each([dynamoSubject(), fileSubject(), memorySubject()])(
  '$name (VersionedItems contract)',
  (subject) => {
    beforeAll(() => subject.start());
    afterAll(() => subject.stop());

    it('creates at version 0 → 1, updates only at the stored version, and says which item conflicted', async () => {
      const items = await subject.fresh();
      expect(await items.get('DAY#2024-01-01')).toBeUndefined();
      await items.put('DAY#2024-01-01', 0, '{"a":1}');
      expect(await items.get('DAY#2024-01-01')).toEqual({
        pk: 'DAY#2024-01-01',
        version: 1,
        data: '{"a":1}',
      });
      const again = await items.put('DAY#2024-01-01', 0, '{"a":2}').catch((e: unknown) => e);
      expect(conflict(again)).toEqual({ pk: 'DAY#2024-01-01', expectedVersion: 0 });
      await items.put('DAY#2024-01-01', 1, '{"a":3}');
      const stale = await items.put('DAY#2024-01-01', 1, '{"a":4}').catch((e: unknown) => e);
      expect(conflict(stale)).toEqual({ pk: 'DAY#2024-01-01', expectedVersion: 1 });
      expect(await items.get('DAY#2024-01-01')).toEqual({
        pk: 'DAY#2024-01-01',
        version: 2,
        data: '{"a":3}',
      });
    });

    it('reads many keys at once, past one batch, leaving out the absent ones', async () => {
      const items = await subject.fresh();
      const keys = Array.from({ length: 130 }, (_, i) => `DAY#k${String(i).padStart(3, '0')}`);
      for (const pk of keys.filter((_, i) => i % 3 !== 0)) await items.put(pk, 0, `{"k":"${pk}"}`);
      await items.put('ACTIVE', 0, '{}', Uint8Array.of(1, 2, 3));
      const found = await items.getMany([...keys, 'ACTIVE', 'DAY#k001']);
      const byKey = new Map(found.map((i) => [i.pk, i]));
      expect(found).toHaveLength(byKey.size);
      expect([...byKey.keys()].sort()).toEqual([...keys.filter((_, i) => i % 3 !== 0), 'ACTIVE'].sort());
      expect(byKey.get('DAY#k001')).toEqual({ pk: 'DAY#k001', version: 1, data: '{"k":"DAY#k001"}' });
      expect([...(byKey.get('ACTIVE')?.bytes ?? [])]).toEqual([1, 2, 3]);
      expect(await items.getMany([])).toEqual([]);
    });

    it('keeps binary bytes beside the data, and a put without bytes leaves none', async () => {
      const items = await subject.fresh();
      const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
      await items.put('ACTIVE', 0, '{}', bytes);
      const stored = await items.get('ACTIVE');
      expect(stored?.bytes && [...stored.bytes]).toEqual([...bytes]);
      expect((await items.query('ACTIVE'))[0]?.bytes?.byteLength).toBe(1000);
      await items.put('ACTIVE', 1, '{"inline":false}');
      expect(await items.get('ACTIVE')).toEqual({ pk: 'ACTIVE', version: 2, data: '{"inline":false}' });
    });

    it('lets exactly one of many concurrent writers of the same version win', async () => {
      const items = await subject.fresh();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => items.put('META', 0, JSON.stringify({ writer: i }))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected' && conflict(r.reason))).toHaveLength(7);
    });

    it('deletes an item (and deleting an absent one does nothing); a deleted key starts again at version 0', async () => {
      const items = await subject.fresh();
      await items.put('ACTIVE#1#x#0', 0, '{}');
      await items.delete('ACTIVE#1#x#0');
      await items.delete('ACTIVE#1#x#0');
      expect(await items.get('ACTIVE#1#x#0')).toBeUndefined();
      await items.put('ACTIVE#1#x#0', 0, '{}');
      expect((await items.get('ACTIVE#1#x#0'))?.version).toBe(1);
    });

    it('queries by key prefix across many small listing pages, and nothing else', async () => {
      const items = await subject.fresh(3);
      const days = Array.from({ length: 11 }, (_, i) => `DAY#2024-01-${String(i + 1).padStart(2, '0')}`);
      for (const pk of [...days, 'PART#2024-01-01', 'PART#active#2024-01-01', 'META', 'LEASE'])
        await items.put(pk, 0, '{}');
      expect((await items.query('DAY#')).map((i) => i.pk).sort()).toEqual(days);
      expect((await items.query('PART#')).map((i) => i.pk).sort()).toEqual([
        'PART#2024-01-01',
        'PART#active#2024-01-01',
      ]);
      expect(await items.query('NONE#')).toEqual([]);
    });
  },
);
