import { randomUUID } from 'node:crypto';
import type { Dirent } from 'node:fs';
import {
  chmod,
  copyFile,
  type FileHandle,
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ArchiverError } from '../../foundation/index.ts';
import { readRange } from './byteSource.ts';
import { assertObjectKey, storeFailed } from './objectKey.ts';
import type { ObjectInfo, ObjectStore } from './objectStore.ts';
import { sameObjectBytes, writeOnceConflict } from './writeOnceConflict.ts';

/**
 * Scratch folder for in-flight writes. Like every root entry whose name starts with '.' (local mode
 * keeps its state in `.state`), it is never listed and cannot be a key.
 */
const TMP_DIR = '.tmp';

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function isMissing(error: unknown): boolean {
  const code = errno(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Makes a rename/link/unlink in `dir` durable. Some platforms cannot fsync a directory: best effort. */
async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Directory fsync is unsupported on some file systems; the data itself was already synced.
  }
}

async function fsyncFile(file: string): Promise<void> {
  const fh = await open(file, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Removes `dir` and then each parent up to (not including) `root` while they are empty, so a run
 * leaves no `_staging/<run>/dt=…` folders behind. Stops at the first folder that still holds
 * something (or is already gone); never fails the caller.
 */
async function removeEmptyParents(dir: string, root: string): Promise<void> {
  for (let d = dir; d.startsWith(root + path.sep); d = path.dirname(d)) {
    try {
      await rmdir(d);
    } catch {
      return; // not empty, already gone, or not ours to remove: all fine
    }
  }
}

/** Folders the store makes: its owner's alone (an archive holds session data, tokens' HMACs, emails). */
const DIR_MODE = 0o700;
/** Files the store writes: read and written by their owner alone. */
const FILE_MODE = 0o600;

/**
 * ObjectStore over plain files under `rootDir` (local mode), every folder it makes 0700 and every file 0600. Writes go to `<root>/.tmp/<random>`,
 * are fsynced, then renamed into place, so a reader never sees a half-written object; `publish`
 * hard-links so an existing target is never replaced.
 */
export function createFileObjectStore(rootDir: string): ObjectStore {
  const root = path.resolve(rootDir);
  const tmpRoot = path.join(root, TMP_DIR);

  const pathOf = (key: string): string => {
    assertObjectKey(key);
    if (key.startsWith('.')) {
      throw new ArchiverError(
        'INTERNAL',
        `object key '${key}' is reserved: root entries starting with '.' are not objects`,
      );
    }
    return path.join(root, ...key.split('/'));
  };

  const statFile = async (file: string): Promise<number | undefined> => (await statObject(file))?.size;

  const statObject = async (file: string): Promise<{ size: number; modifiedAt: Date } | undefined> => {
    try {
      const s = await stat(file);
      return s.isFile() ? { size: s.size, modifiedAt: s.mtime } : undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  };

  /** Runs `fill(tmp)` then moves the synced result under `key`; removes the scratch file on failure. */
  const writeAtomically = async (key: string, fill: (tmp: string) => Promise<void>): Promise<number> => {
    const target = pathOf(key);
    const tmp = path.join(tmpRoot, randomUUID());
    try {
      // Another write may remove the then-empty scratch folder at any point (even inside a recursive
      // mkdir): make it again and retry.
      for (let attempt = 1; ; attempt++) {
        try {
          await mkdir(tmpRoot, { recursive: true, mode: DIR_MODE });
          await fill(tmp);
          break;
        } catch (error) {
          if (!isMissing(error) || attempt >= 5) throw error;
          await rm(tmp, { force: true });
        }
      }
      // A copied file keeps its source's mode: every object is the owner's alone.
      await chmod(tmp, FILE_MODE);
      await fsyncFile(tmp);
      const { size } = await stat(tmp);
      await mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
      await rename(tmp, target).catch(async (error: unknown) => {
        // A concurrent prune may remove the empty folder between mkdir and rename: make it again.
        if (!isMissing(error)) throw error;
        await mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
        await rename(tmp, target);
      });
      await fsyncDir(path.dirname(target));
      await rmdir(tmpRoot).catch(() => undefined); // only when empty: no scratch folder is left behind
      return size;
    } catch (error) {
      await rm(tmp, { force: true });
      throw storeFailed(`cannot write '${key}' under ${root}`, error);
    }
  };

  async function* walk(dir: string, relative: string): AsyncGenerator<ObjectInfo> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    // Each folder in key order (a folder sorts as its name and a slash), so the walk yields keys in the
    // order of an S3 listing as it goes: a caller that stops early reads only the folders before it stops.
    const sortName = (e: Dirent) => (e.isDirectory() ? `${e.name}/` : e.name);
    entries.sort((a, b) => (sortName(a) < sortName(b) ? -1 : sortName(a) > sortName(b) ? 1 : 0));
    for (const entry of entries) {
      if (relative === '' && entry.name.startsWith('.')) continue;
      const key = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        yield* walk(full, key);
      } else if (entry.isFile()) {
        const info = await statObject(full);
        if (info !== undefined) yield { key, ...info };
      }
    }
  }

  const store: ObjectStore = {
    url: pathToFileURL(root).href,

    putFile: (key, localPath) => writeAtomically(key, (tmp) => copyFile(localPath, tmp)),

    put: (key, body) =>
      writeAtomically(key, async (tmp) => {
        const fh = await open(tmp, 'wx', FILE_MODE);
        try {
          await fh.writeFile(body);
        } finally {
          await fh.close();
        }
      }),

    async putIfAbsent(key, body) {
      const target = pathOf(key);
      const tmp = path.join(tmpRoot, randomUUID());
      const fill = async () => {
        const fh = await open(tmp, 'wx', FILE_MODE);
        try {
          await fh.writeFile(body);
          await fh.sync();
        } finally {
          await fh.close();
        }
      };
      try {
        // Another write may remove the then-empty scratch folder at any point (even inside a recursive
        // mkdir): make it again and retry.
        for (let attempt = 1; ; attempt++) {
          try {
            await mkdir(tmpRoot, { recursive: true, mode: DIR_MODE });
            await fill();
            break;
          } catch (error) {
            if (!isMissing(error) || attempt >= 5) throw error;
          }
        }
        await mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
        try {
          // link() fails with EEXIST instead of replacing: the write-once guarantee.
          await link(tmp, target).catch(async (error: unknown) => {
            // A concurrent prune may remove the empty folder between mkdir and link: make it again.
            if (!isMissing(error)) throw error;
            await mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
            await link(tmp, target);
          });
        } catch (error) {
          if (errno(error) === 'EEXIST') return false;
          throw error;
        }
        await fsyncDir(path.dirname(target));
        return true;
      } catch (error) {
        throw storeFailed(`cannot write '${key}' under ${root}`, error);
      } finally {
        await rm(tmp, { force: true });
        await rmdir(tmpRoot).catch(() => undefined); // only when empty: no scratch folder is left behind
      }
    },

    async get(key) {
      try {
        const buf = await readFile(pathOf(key));
        return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      } catch (error) {
        if (isMissing(error) || errno(error) === 'EISDIR') return undefined;
        throw storeFailed(`cannot read '${key}' under ${root}`, error);
      }
    },

    async getRange(key, start, end, into) {
      let handle: FileHandle | undefined;
      try {
        handle = await open(pathOf(key), 'r');
        return await readRange(handle, start, end, into);
      } catch (error) {
        if (isMissing(error) || errno(error) === 'EISDIR') return undefined;
        throw storeFailed(`cannot read '${key}' under ${root}`, error);
      } finally {
        await handle?.close();
      }
    },

    async head(key) {
      try {
        const info = await statObject(pathOf(key));
        return info === undefined ? undefined : { key, ...info };
      } catch (error) {
        throw storeFailed(`cannot stat '${key}' under ${root}`, error);
      }
    },

    async *list(prefix) {
      // Walk only the deepest folder the prefix names fully, then filter on the full key.
      const slash = prefix.lastIndexOf('/');
      const baseKey = slash < 0 ? '' : prefix.slice(0, slash);
      if (baseKey !== '') assertObjectKey(baseKey);
      const baseDir = baseKey === '' ? root : path.join(root, ...baseKey.split('/'));
      // Lazily, in the order of an S3 listing: stopping after the first key costs one folder a level.
      const walker = walk(baseDir, baseKey);
      for (;;) {
        let next: IteratorResult<ObjectInfo>;
        try {
          next = await walker.next();
        } catch (error) {
          throw storeFailed(`cannot list '${prefix}' under ${root}`, error);
        }
        if (next.done) return;
        if (next.value.key.startsWith(prefix)) yield next.value;
      }
    },

    async publish(fromKey, toKey) {
      const from = pathOf(fromKey);
      const to = pathOf(toKey);
      try {
        await mkdir(path.dirname(to), { recursive: true, mode: DIR_MODE });
        try {
          // link() fails with EEXIST instead of replacing: the never-overwrite guarantee.
          await link(from, to);
        } catch (error) {
          const code = errno(error);
          if (code === 'EEXIST') {
            // Already published (by us before a crash, or earlier): only the staging copy is left to drop.
            // Other bytes there are another writer's: fail loudly and keep ours.
            if (!(await sameObjectBytes(store, fromKey, toKey))) throw writeOnceConflict(fromKey, toKey);
          } else if (code === 'ENOENT') {
            if ((await statFile(to)) !== undefined) return; // from is gone and to exists: a repeated publish.
            throw new ArchiverError('STORE_FAILED', `cannot publish '${fromKey}': it does not exist`, {
              retryable: false,
            });
          } else if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EXDEV') {
            // File system without hard links: check then rename (single writer holds the lease).
            if ((await statFile(to)) === undefined) {
              await rename(from, to);
              await fsyncDir(path.dirname(to));
              await removeEmptyParents(path.dirname(from), root);
              return;
            }
            if (!(await sameObjectBytes(store, fromKey, toKey))) throw writeOnceConflict(fromKey, toKey);
          } else {
            throw error;
          }
        }
        await fsyncDir(path.dirname(to));
        await unlink(from).catch((error: unknown) => {
          if (!isMissing(error)) throw error;
        });
        await removeEmptyParents(path.dirname(from), root);
      } catch (error) {
        throw storeFailed(`cannot publish '${fromKey}' as '${toKey}' under ${root}`, error);
      }
    },

    async deleteStaging(key) {
      const file = pathOf(key);
      try {
        await unlink(file);
      } catch (error) {
        if (isMissing(error)) return;
        throw storeFailed(`cannot delete '${key}' under ${root}`, error);
      }
      await removeEmptyParents(path.dirname(file), root);
    },
  };
  return store;
}
