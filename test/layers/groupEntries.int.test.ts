import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleOf, packagesImported, staticallyLoaded } from '../support/staticallyLoaded.ts';

const LIB = fileURLToPath(new URL('../../lib/', import.meta.url));
/** The packages a command must not load unless it needs them: AWS, DuckDB, the report's charts and DOM. */
const HEAVY = /^(@aws-sdk\/|@duckdb\/|@observablehq\/plot|linkedom|playwright-core)/;

const groups = readdirSync(LIB, { withFileTypes: true })
  .filter((d) => d.isDirectory() && readdirSync(`${LIB}${d.name}`).includes('index.ts'))
  .map((d) => d.name)
  .sort();

describe("lib/'s groups and their entry points (the layer rules send other groups through them)", () => {
  it('lib/ is a few named groups, each a folder with an entry point, beside the CLI', () => {
    expect(readdirSync(LIB).sort()).toEqual(['analytics', 'archive', 'cli', 'foundation', 'integrity']);
    expect(groups).toEqual(['analytics', 'archive', 'foundation', 'integrity']);
  });

  it.each(groups)(
    'loading lib/%s/index.ts loads no AWS SDK client, no DuckDB and no report package',
    async (group) => {
      const loaded = staticallyLoaded(await bundleOf(`lib/${group}/index.ts`));
      expect(loaded.length).toBeGreaterThan(0);
      expect(packagesImported(loaded, HEAVY)).toEqual([]);
    },
  );

  it.each(groups.filter((g) => readdirSync(`${LIB}${g}`).includes('adapters.ts')))(
    'the control: lib/%s/adapters.ts does load one (so the check above can see them)',
    async (group) => {
      const loaded = staticallyLoaded(await bundleOf(`lib/${group}/adapters.ts`));
      expect(packagesImported(loaded, HEAVY).length).toBeGreaterThan(0);
    },
  );
});
