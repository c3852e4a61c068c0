import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { ArchiverError } from '../../foundation/index.ts';
import { versionConflict } from './versionedConcerns.ts';
import type { VersionedItem, VersionedItems } from './versionedItems.ts';

/** One item's file: the item as JSON, its bytes (if any) as base64. */
const itemFileSchema = z.object({
  pk: z.string(),
  version: z.number().int().nonnegative(),
  data: z.string(),
  bytes: z.string().optional(),
});

const SUFFIX = '.json';

/**
 * Where the writes of a folder's items are prepared before each is renamed into place: a sibling folder
 * (same file system, so the rename is atomic), empty but for the writes of a process killed mid-write,
 * which the folder's next owner removes whole without listing the items (`openLocalState`).
 */
export function pendingWritesDir(dir: string): string {
  return `${dir}.writing`;
}
/**
 * The last write of each item file in flight in this process (whichever instance made it): the next
 * write of that file waits for it.
 */
const writing = new Map<string, Promise<void>>();
let tmpCount = 0;

/**
 * The versioned-item primitive on a folder, for local mode: one file per item (`<encoded pk>.json`),
 * replaced whole by a write to a temporary file (in {@link pendingWritesDir}) and a rename, so a killed
 * process leaves each item as it was or as it became, never half-written. The folder is one process's at a time (the caller holds the
 * state folder's kernel lock, `lockDir`), so a put's check of the stored version and its write cannot be
 * raced by another process; within the process, writes of one item file are queued. With no server, no SDK and
 * no database to start, a local run opens its state in a few milliseconds (bench/PROFILE.md, quiet runs).
 */
export function fileVersionedItems(dir: string): VersionedItems {
  const fileOf = (pk: string) => path.join(dir, `${encodeURIComponent(pk)}${SUFFIX}`);
  let made: Promise<unknown> | undefined;

  const read = async (file: string): Promise<VersionedItem | undefined> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw failed(`cannot read ${file}`, error);
    }
    let parsed: z.infer<typeof itemFileSchema>;
    try {
      parsed = itemFileSchema.parse(JSON.parse(text));
    } catch (cause) {
      throw new ArchiverError('INTERNAL', `state item file ${file} is not a stored item`, { cause });
    }
    const { bytes, ...item } = parsed;
    return bytes === undefined ? item : { ...item, bytes: new Uint8Array(Buffer.from(bytes, 'base64')) };
  };

  /** The item folder and its pending-writes folder, made once (tried again after a failure). */
  const ensureFolders = (): Promise<unknown> => {
    made ??= Promise.all([
      mkdir(dir, { recursive: true, mode: 0o700 }),
      mkdir(pendingWritesDir(dir), { recursive: true, mode: 0o700 }),
    ]).catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };

  const write = async (item: VersionedItem): Promise<void> => {
    const file = fileOf(item.pk);
    const tmp = path.join(pendingWritesDir(dir), `${path.basename(file)}.${process.pid}-${++tmpCount}.tmp`);
    const { bytes, ...rest } = item;
    const text = JSON.stringify(
      bytes === undefined ? rest : { ...rest, bytes: Buffer.from(bytes).toString('base64') },
    );
    try {
      await ensureFolders();
      const handle = await open(tmp, 'w', 0o600);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, file);
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw failed(`cannot write ${file}`, error);
    }
  };

  /** Runs `work` after every earlier write of `pk`'s file in this process has settled. */
  const queued = (pk: string, work: () => Promise<void>): Promise<void> => {
    const key = path.resolve(fileOf(pk));
    const next = (writing.get(key) ?? Promise.resolve()).then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    writing.set(key, settled);
    void settled.then(() => {
      if (writing.get(key) === settled) writing.delete(key);
    });
    return next;
  };

  return {
    where: `in the state folder ${dir}`,
    get: (pk) => read(fileOf(pk)),
    getMany: async (pks) =>
      (await Promise.all([...new Set(pks)].map((pk) => read(fileOf(pk))))).filter(
        (item): item is VersionedItem => item !== undefined,
      ),
    put: (pk, version, data, bytes) =>
      queued(pk, async () => {
        const stored = await read(fileOf(pk));
        if ((stored?.version ?? 0) !== version) throw versionConflict(pk, version);
        await write({ pk, version: version + 1, data, ...(bytes === undefined ? {} : { bytes }) });
      }),
    delete: (pk) =>
      queued(pk, async () => {
        await rm(fileOf(pk), { force: true }).catch((error: unknown) => {
          throw failed(`cannot remove ${fileOf(pk)}`, error);
        });
      }),
    async query(prefix) {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw failed(`cannot list ${dir}`, error);
      }
      const start = encodeURIComponent(prefix);
      const found = await Promise.all(
        names
          .filter((name) => name.startsWith(start) && name.endsWith(SUFFIX))
          .map((name) => read(path.join(dir, name))),
      );
      return found.filter((item): item is VersionedItem => item !== undefined);
    },
  };
}

function failed(message: string, cause: unknown): ArchiverError {
  return new ArchiverError('STORE_FAILED', `${message}: ${(cause as Error).message}`, { cause });
}
