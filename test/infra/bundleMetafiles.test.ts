import { describe, expect, it } from 'vitest';
import { type Metafile, unshippedImports } from './bundleMetafiles.ts';

const BUILTINS = new Set(['fs', 'node:fs', 'node:sqlite']);

/** A metafile whose one output keeps `externals`, each imported by the input file named with it. */
function metafile(externals: [module: string, importer: string][]): Metafile {
  const inputs: Metafile['inputs'] = {};
  for (const [module, importer] of externals) {
    inputs[importer] ??= { imports: [] };
    inputs[importer].imports.push({ path: module, kind: 'require-call', external: true });
  }
  return {
    inputs,
    outputs: {
      'index.mjs': { imports: externals.map(([path]) => ({ path, kind: 'require-call', external: true })) },
    },
  };
}

describe('unshippedImports', () => {
  it.each([
    ['a native module the bundle leaves out', 'classic-level', 'lib/foundation/process/kernelLock.ts', true],
    ['an npm package left external', 'left-pad', 'lib/x.ts', true],
    ['a builtin of the Lambda Node only', 'node:sqlite', 'node_modules/undici/lib/x.js', false],
    ['a bare builtin', 'fs', 'lib/x.ts', false],
    ['the runtime SDK', '@aws-sdk/client-s3', 'lib/x.ts', false],
    ['canvas from linkedom, which falls back', 'canvas', 'node_modules/linkedom/commonjs/canvas.cjs', false],
    ['canvas from linkedom elsewhere', 'canvas', '../x/node_modules/linkedom/commonjs/canvas.cjs', false],
    ['canvas from anywhere else', 'canvas', 'lib/integrity/report/draw.ts', true],
  ])('%s: flagged %s', (_what, module, importer, flagged) => {
    const found = unshippedImports(metafile([[module, importer]]), BUILTINS);
    expect(found).toEqual(flagged ? [{ module, kind: 'require-call', importers: [importer] }] : []);
  });

  it('counts a package installed beside the bundle (nodeModules) as shipped, and only that package', () => {
    const meta = metafile([
      ['@duckdb/node-api', 'lib/analytics/ocsf/ocsfArchive.ts'],
      ['classic-level', 'lib/foundation/process/kernelLock.ts'],
    ]);
    expect(unshippedImports(meta, BUILTINS, new Set(['@duckdb/node-api']))).toEqual([
      { module: 'classic-level', kind: 'require-call', importers: ['lib/foundation/process/kernelLock.ts'] },
    ]);
  });

  it('reads what the output keeps, not every input esbuild parsed (tree-shaken imports are gone)', () => {
    const meta = metafile([]);
    meta.inputs['lib/foundation/process/kernelLock.ts'] = {
      imports: [{ path: 'classic-level', kind: 'dynamic-import', external: true }],
    };
    expect(unshippedImports(meta, BUILTINS)).toEqual([]);
  });
});
