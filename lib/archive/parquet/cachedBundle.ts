import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sourceFingerprint } from '../../foundation/index.ts';

/** A bundle as its builder returns it: the code, and the files it was built from (paths from `root`). */
export interface BuiltBundle {
  code: string;
  inputs: string[];
}

export interface CachedBundleOptions {
  /** Folder of the cache entries (created when missing). */
  dir: string;
  /** Names the entry: one file of code and one of metadata per key. */
  key: string;
  /** What `inputs` are relative to. */
  root: string;
}

interface Meta {
  fingerprint: string;
  inputs: string[];
  /** Digest of the code file written with this metadata: two processes writing at once never mix pairs. */
  code: string;
}

/**
 * The code `build` returns, kept on disk under `dir` and reused while every input file holds the same
 * bytes as when it was built (a digest of their contents, not of sizes and times, so a checkout or a
 * restored mtime still rebuilds). A cache that cannot be read or written is only a slower start: the
 * bundle is then built in memory, and a failed `build` throws as it would uncached. The inputs are read
 * after the build: a file edited during the build itself may be recorded as built (a development race;
 * its next edit rebuilds).
 */
export function cachedBundle(options: CachedBundleOptions, build: () => BuiltBundle): string {
  const metaFile = join(options.dir, `${options.key}.json`);
  const codeFile = join(options.dir, `${options.key}.cjs`);
  try {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Meta;
    if (Array.isArray(meta.inputs) && meta.fingerprint === fingerprint(options.root, meta.inputs)) {
      const code = readFileSync(codeFile, 'utf8');
      if (digest(code) === meta.code) return code;
    }
  } catch {
    // No usable entry: build.
  }
  const built = build();
  try {
    mkdirSync(options.dir, { recursive: true });
    // Code first, metadata last, each renamed into place: a reader never pairs new metadata with old code.
    const tmp = `.${process.pid}-${Date.now()}.tmp`;
    writeFileSync(codeFile + tmp, built.code);
    renameSync(codeFile + tmp, codeFile);
    const meta: Meta = {
      fingerprint: fingerprint(options.root, built.inputs),
      inputs: built.inputs,
      code: digest(built.code),
    };
    writeFileSync(metaFile + tmp, JSON.stringify(meta));
    renameSync(metaFile + tmp, metaFile);
  } catch {
    // An unwritable cache: the next process builds again.
  }
  return built.code;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function fingerprint(root: string, inputs: readonly string[]): string {
  return sourceFingerprint(inputs, (input) => readFileSync(resolve(root, input)));
}
