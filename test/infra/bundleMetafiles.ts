import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The part of esbuild's metafile this check reads. */
export interface Metafile {
  inputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
  outputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
}

/** An import a bundle keeps outside itself that the Lambda runtime does not provide. */
export interface UnshippedImport {
  module: string;
  kind: string;
  /** The source files that import it (from the metafile's inputs). */
  importers: string[];
}

/**
 * Externals a bundle may keep although the runtime lacks them, each with the one file allowed to import it
 * and why that import cannot fail a call. Anything else left out of a bundle is a module it does not ship.
 */
export const TOLERATED_EXTERNALS: Record<string, { importer: string; reason: string }> = {
  canvas: {
    importer: 'node_modules/linkedom/commonjs/canvas.cjs',
    reason:
      "linkedom (the report's DOM) requires its optional peer canvas inside try/catch and falls back to its own shim",
  },
};

/** The builtin modules of a Node binary (the Lambda's, not the one running the tests: `node:sqlite`). */
export function builtinsOf(node: string): Set<string> {
  const out = execFileSync(node, ['-p', "JSON.stringify(require('node:module').builtinModules)"], {
    encoding: 'utf8',
  });
  const names = JSON.parse(out) as string[];
  return new Set(names.flatMap((n) => (n.startsWith('node:') ? [n] : [n, `node:${n}`])));
}

/** What the Lambda's Node runtime provides beside the bundle: its builtins and the AWS SDK v3. */
export function isRuntimeProvided(module: string, builtins: ReadonlySet<string>): boolean {
  return builtins.has(module) || module.startsWith('@aws-sdk/');
}

/** The package an import names: `@duckdb/node-api/x` is `@duckdb/node-api`, `a/b` is `a`. */
export function packageOf(module: string): string {
  const parts = module.split('/');
  return (module.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** The packages installed in `node_modules` beside a bundle (the bundling's `nodeModules`). */
export function shippedPackages(bundleDir: string): Set<string> {
  const root = join(bundleDir, 'node_modules');
  if (!existsSync(root)) return new Set();
  return new Set(
    readdirSync(root).flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(root, name)).map((n) => `${name}/${n}`) : [name],
    ),
  );
}

/**
 * The imports of a bundle (its output file's, after tree shaking: what the shipped code can still load)
 * that are external and neither provided by the runtime nor installed beside the bundle (`shipped`), with
 * the files that import them. A tolerated external counts only when the file allowed to import it is its
 * only importer.
 */
export function unshippedImports(
  meta: Metafile,
  builtins: ReadonlySet<string>,
  shipped: ReadonlySet<string> = new Set(),
): UnshippedImport[] {
  const out = new Map<string, UnshippedImport>();
  for (const output of Object.values(meta.outputs)) {
    for (const i of output.imports) {
      if (!i.external || isRuntimeProvided(i.path, builtins) || out.has(i.path)) continue;
      if (shipped.has(packageOf(i.path))) continue;
      const importers = Object.entries(meta.inputs)
        .filter(([, input]) => input.imports.some((j) => j.path === i.path && j.external))
        .map(([file]) => file)
        .sort();
      const tolerated = TOLERATED_EXTERNALS[i.path];
      // esbuild names a file relative to the working folder, node_modules by its real path (maybe ../x/node_modules).
      const isAllowed = (f: string) => f === tolerated?.importer || f.endsWith(`/${tolerated?.importer}`);
      if (tolerated && importers.length > 0 && importers.every(isAllowed)) continue;
      out.set(i.path, { module: i.path, kind: i.kind, importers });
    }
  }
  return [...out.values()];
}

/** The metafile CDK's bundling wrote beside a bundle (see {@link withBundleMetafiles}). */
export const METAFILE = 'index.meta.json';

interface BundlingInternals {
  prototype: { buildEsbuildArgs(this: { props: { metafile?: boolean } }, ...args: unknown[]): string[] };
}

/**
 * Runs `synth` with every NodejsFunction's esbuild also writing its metafile (`index.meta.json` beside
 * `index.mjs` in the asset): the bundling of the deployed stack, same command and options, plus
 * `--metafile`. CDK's Bundling class is internal, so it is reached by its file; a CDK that renames it
 * fails here, loudly.
 */
export function withBundleMetafiles<T>(synth: () => T): T {
  const require = createRequire(import.meta.url);
  const cdkRoot = join(require.resolve('aws-cdk-lib/package.json'), '..');
  const { Bundling } = require(join(cdkRoot, 'aws-lambda-nodejs/lib/bundling.js')) as {
    Bundling: BundlingInternals;
  };
  const original = Bundling.prototype.buildEsbuildArgs;
  if (typeof original !== 'function') throw new Error("aws-cdk-lib's Bundling has no buildEsbuildArgs");
  Bundling.prototype.buildEsbuildArgs = function (...args) {
    this.props.metafile = true;
    return original.apply(this, args);
  };
  try {
    return synth();
  } finally {
    Bundling.prototype.buildEsbuildArgs = original;
  }
}
