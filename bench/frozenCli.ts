/**
 * The CLI as one bundle built once for a whole bench case: `bin/tunnel-archiver.js` checks the fingerprint of
 * every source at each start and bundles them again with esbuild whenever one changed (0.6–0.9 CPU s of a
 * run's main thread, profiled, while other work edits the checkout). A Lambda runs a bundle built before
 * deployment and pays neither; so does a run started from the launcher this returns, which imports the
 * bundle `bin/importTs.js` built (or had cached) when the case began and calls the CLI's `main`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../lib/cli/main.ts', import.meta.url));

/** Writes the launcher into `dir` and returns its path: `node <launcher> <cli args>` runs the CLI. */
export async function frozenCli(dir: string): Promise<string> {
  const { bundleTs } = (await import(new URL('../bin/importTs.js', import.meta.url).href)) as {
    bundleTs(entry: string): Promise<string>;
  };
  const bundle = await bundleTs(MAIN);
  const launcher = join(dir, 'frozen-cli.mjs');
  writeFileSync(
    launcher,
    `const { main } = await import(${JSON.stringify(bundle)});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  );
  return launcher;
}
