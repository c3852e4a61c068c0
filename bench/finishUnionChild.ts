/**
 * The child of `finishUnionMemory.ts`: `finishUnionChild.ts <dir> <key>...` takes the union of the range
 * id files under `dir` the way the fan-out finish step does (each read through the object store, its
 * lines added to one `IdSet` by `addIdLines`) and prints one JSON line: rows, peak RSS, baseline RSS,
 * the set's bytes and seconds.
 */

import { createFileObjectStore } from '../lib/archive/store/fileObjectStore.ts';
import { addIdLines } from '../lib/archive/walk/idLines.ts';
import { IdSet } from '../lib/foundation/ids/idSet.ts';

async function union(dir: string, keys: string[]): Promise<void> {
  const objects = createFileObjectStore(dir);
  const baseline = process.memoryUsage().rss;
  const started = performance.now();
  const ids = new IdSet();
  for (const key of keys) {
    const bytes = await objects.get(key);
    if (bytes) await addIdLines(bytes, ids);
  }
  const mib = (b: number) => Math.round((b / 1_048_576) * 10) / 10;
  process.stdout.write(
    `${JSON.stringify({
      rows: ids.size,
      peakRssMiB: mib(process.resourceUsage().maxRSS * 1024),
      baselineRssMiB: mib(baseline),
      idSetMiB: mib(ids.byteLength),
      seconds: Math.round((performance.now() - started) / 10) / 100,
    })}\n`,
  );
}

await union(process.argv[2] as string, process.argv.slice(3));
