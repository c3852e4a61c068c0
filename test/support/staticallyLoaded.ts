import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The files of a bundle that load when `entry` does: static imports, followed; `import()` is not. */
export function staticallyLoaded(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(
      /(?:^|[;\n])\s*(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"|(?:^|[;\n])\s*import\s*"(\.[^"]+)"/g,
    ))
      visit(path.resolve(path.dirname(file), (m[1] ?? m[2]) as string));
  };
  visit(entry);
  return [...seen];
}

/** The path of the bundle of a TypeScript entry, as the CLI and `bin/run-ts.js` build it (bin/importTs.js). */
export async function bundleOf(entry: string): Promise<string> {
  const { bundleTs } = (await import(pathToFileURL(path.join(REPO_ROOT, 'bin/importTs.js')).href)) as {
    bundleTs(entry: string): Promise<string>;
  };
  return fileURLToPath(await bundleTs(path.resolve(REPO_ROOT, entry)));
}

/** The packages a bundle's files import by name at load (`from "pkg"`, `import "pkg"`), matching `which`. */
export function packagesImported(files: string[], which: RegExp): string[] {
  const found = new Set<string>();
  for (const f of files)
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import)\s*"([^".][^"]*)"/g))
      if (which.test(m[1] as string)) found.add(m[1] as string);
  return [...found].sort();
}
