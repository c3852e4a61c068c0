import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as z from 'zod';
import { activeStateSchema } from '../../lib/archive/active/activeState.ts';
import { archiveMetaSchema } from '../../lib/archive/state/archiveMeta.ts';
import { dayStateSchema } from '../../lib/archive/state/dayState.ts';
import { fileVersionedItems, pendingWritesDir } from '../../lib/archive/state/fileVersionedItems.ts';
import { leaseSchema } from '../../lib/archive/state/lease.ts';
import { LEASE_PK } from '../../lib/archive/state/leaseConcern.ts';
import { partitionManifestSchema } from '../../lib/archive/state/partitionManifest.ts';
import { stateConcerns } from '../../lib/archive/state/stateConcerns.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import type { VersionedItems } from '../../lib/archive/state/versionedItems.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { MemoryVersionedItems } from '../support/fakes/memoryVersionedItems.ts';

const NOW = new Date('2026-03-01T00:00:00Z');

/**
 * Each state item, stored malformed in one field that only its own schema's rule refuses, and read back
 * through the port: `write` stores it as a caller (or another release) could, `read` reads it.
 */
const ITEMS: {
  item: string;
  schema: z.ZodType;
  stored: Record<string, unknown>;
  write: (store: StateStore, items: VersionedItems, bad: Record<string, unknown>) => Promise<unknown>;
  read: (store: StateStore) => Promise<unknown>;
}[] = [
  {
    item: 'DAY#<day>',
    schema: dayStateSchema,
    stored: { day: '2026-02-30x', scannedAges: [], sealed: false, version: 0 },
    write: (_s, items, bad) => items.put('DAY#2026-02-01', 0, JSON.stringify(bad)),
    read: (s) => s.getDay('2026-02-01'),
  },
  {
    item: 'PART#<dt>',
    schema: partitionManifestSchema,
    stored: {
      dt: '2026-02-01',
      files: [
        {
          name: 'a.parquet',
          stagingKey: 's',
          rows: -1,
          bytes: 1,
          runId: 'r',
          fence: 1,
          committedAt: 'x',
          published: false,
        },
      ],
      version: 0,
    },
    write: (_s, items, bad) => items.put('PART#2026-02-01', 0, JSON.stringify(bad)),
    read: (s) => s.getPartition('2026-02-01'),
  },
  {
    item: 'META',
    schema: archiveMetaSchema,
    stored: {
      firstRunAt: 'x',
      firstWindowStart: '2026-01-01',
      chainHead: { seq: 1, key: 'k', sha256: 'XYZ', at: 'x' },
    },
    write: (_s, items, bad) => items.put('META', 0, JSON.stringify(bad)),
    read: (s) => s.getMeta(),
  },
  {
    item: 'ACTIVE',
    schema: activeStateSchema,
    stored: { sessions: {}, gaps: [{ from: 'a', to: 'b', ms: 'long' }], version: 0 },
    write: (s, _items, bad) => s.putActiveState(bad as never),
    read: (s) => s.getActiveState(),
  },
  {
    item: 'LEASE',
    schema: leaseSchema,
    stored: { owner: 'other', fence: -1, expiresAt: 0 },
    write: (_s, items, bad) => items.put(LEASE_PK, 0, JSON.stringify(bad)),
    read: (s) => s.acquireLease('me', NOW, 60_000),
  },
];

const dirs: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const BACKENDS: { backend: string; open: () => Promise<VersionedItems> }[] = [
  {
    backend: 'the state folder',
    open: async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'state-items-'));
      // The folder and the sibling its writes are prepared in.
      dirs.push(dir, pendingWritesDir(dir));
      return fileVersionedItems(dir);
    },
  },
  { backend: 'memory', open: async () => new MemoryVersionedItems() },
];

describe('the state port', () => {
  describe.each(BACKENDS)('over $backend', ({ open }) => {
    it.each(ITEMS)(
      "reads $item through its one schema, and refuses a malformed one with that schema's issues",
      async ({ schema, stored, write, read }) => {
        const items = await open();
        const store = stateConcerns(items);
        await write(store, items, stored);
        const parse = vi.spyOn(schema, 'safeParse');

        const error = await read(store).then(
          () => undefined,
          (e: unknown) => e,
        );

        expect(parse).toHaveBeenCalled();
        expect(ArchiverError.is(error, 'INTERNAL')).toBe(true);
        expect((error as Error).message).toMatch(/is malformed/);
        parse.mockRestore();
        const own = schema.safeParse({ ...stored, version: 0 });
        expect(own.success).toBe(false);
        expect(((error as Error).cause as z.ZodError).issues).toEqual(own.error?.issues);
      },
    );
  });
});
