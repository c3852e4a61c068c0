// Runs a TypeScript entry as one ESM bundle built by esbuild (which the project already installs), cached
// under node_modules/.cache and rebuilt when the bytes of any of its source files change. Unlike a loader (tsx), this
// adds no thread and no second V8 heap to the process: about 30 MiB less RSS, measured (bench/PROFILE.md).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceFingerprint } from '../lib/foundation/fingerprint/sourceFingerprint.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'tunnel-archiver');

/**
 * A digest of every input's bytes (`sourceFingerprint`), as recorded beside a bundle. `read` gives an
 * input's bytes (by default from disk; at build time, the bytes esbuild bundled, so a file edited during
 * the build is rebuilt next time rather than recorded as current).
 */
function fingerprint(inputs, read = (input) => readFileSync(join(ROOT, input))) {
  return sourceFingerprint(inputs, read);
}

/** esbuild's loader for a source file it would otherwise read itself. */
function loaderOf(path) {
  if (/\.[cm]?ts$/.test(path)) return 'ts';
  if (/\.json$/.test(path)) return 'json';
  return 'js';
}

/**
 * Reads every source the bundle is built from, keeping its bytes in `loaded` (for the fingerprint), and
 * keeps each module's own `import.meta.url` (a bundle would otherwise give every module the bundle's):
 * esbuild's `define` replaces the expression in the syntax tree, never inside a string.
 */
function readSources(esbuild, loaded) {
  return {
    name: 'read-sources',
    setup(build) {
      build.onLoad({ filter: /\.([cm]?[jt]s|json)$/ }, (args) => {
        const bytes = readFileSync(args.path);
        loaded.set(relative(ROOT, args.path), bytes);
        const loader = loaderOf(args.path);
        const source = bytes.toString('utf8');
        if (loader !== 'ts' || !source.includes('import.meta.url')) return { contents: bytes, loader };
        const { code } = esbuild.transformSync(source, {
          loader: 'ts',
          format: 'esm',
          define: { 'import.meta.url': JSON.stringify(pathToFileURL(args.path).href) },
          sourcefile: args.path,
        });
        return { contents: code, loader: 'js' };
      });
    },
  };
}

/**
 * The bundle of `entry` (a path), built now unless a current one is cached; returns its file URL. Code
 * splitting keeps every dynamic `import()` lazy: a module the CLI loads only for some commands (the AWS
 * SDK, DuckDB) is a chunk of its own, imported when, and only if, it is needed.
 */
export async function bundleTs(entry) {
  const abs = resolve(entry);
  const name = cacheName(abs);
  const metaFile = join(CACHE, `${name}.json`);
  try {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8'));
    if (meta.fingerprint === fingerprint(meta.inputs)) {
      const main = join(CACHE, meta.dir, meta.main);
      statSync(main);
      return pathToFileURL(main).href;
    }
  } catch {
    // No usable cache entry: build.
  }
  const esbuild = await import('esbuild');
  const loaded = new Map();
  const result = await esbuild.build({
    entryPoints: [abs],
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: CACHE,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [readSources(esbuild, loaded)],
  });
  const inputs = Object.keys(result.metafile.inputs).map((p) => relative(ROOT, resolve(ROOT, p)));
  // A new folder per build, recorded last: a concurrent start never sees a half-written bundle, and a
  // running process keeps the chunks it may still import.
  const dir = `${name}-${process.pid}-${Date.now()}`;
  mkdirSync(join(CACHE, dir), { recursive: true });
  let main = '';
  for (const file of result.outputFiles) {
    const rel = relative(CACHE, file.path);
    writeFileSync(join(CACHE, dir, rel), file.contents);
    // Dynamically imported modules are entry points too (of their own chunks): match ours by path.
    const out = result.metafile.outputs[relative(ROOT, file.path)];
    if (out?.entryPoint === relative(ROOT, abs)) main = rel;
  }
  if (!main) throw new Error(`esbuild produced no entry for ${entry}`);
  const tmp = `${metaFile}.${process.pid}.tmp`;
  const bundled = (input) => loaded.get(input) ?? readFileSync(join(ROOT, input));
  writeFileSync(tmp, JSON.stringify({ fingerprint: fingerprint(inputs, bundled), inputs, dir, main }));
  renameSync(tmp, metaFile);
  pruneOlderBuilds(name, dir);
  return pathToFileURL(join(CACHE, dir, main)).href;
}

/**
 * Names the cache record of `abs`: its path from the checkout root, and the root itself. Two checkouts can
 * share one `node_modules` (a git worktree with a symlink to it): a bundle records every module's absolute
 * `import.meta.url`, so one checkout must never run a bundle built in the other, even of the same bytes.
 */
export function cacheName(abs) {
  return createHash('sha256')
    .update(`${ROOT}\0${relative(ROOT, abs)}`)
    .digest('hex')
    .slice(0, 16);
}

/** Removes earlier builds of the same entry that are over an hour old (no running process still loads them). */
function pruneOlderBuilds(name, keep) {
  const cutoff = Date.now() - 3_600_000;
  for (const entry of readdirSync(CACHE)) {
    if (!entry.startsWith(`${name}-`) || entry === keep) continue;
    try {
      if (statSync(join(CACHE, entry)).mtimeMs < cutoff)
        rmSync(join(CACHE, entry), { recursive: true, force: true });
    } catch {
      // Another process pruned it first.
    }
  }
}

/** Imports the TypeScript module at `entry` (see `bundleTs`). */
export async function importTs(entry) {
  return import(await bundleTs(entry));
}
