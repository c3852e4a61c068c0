import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { archiveKeys, type ObjectStore } from '../../archive/index.ts';
import { addDays, type Day } from '../../foundation/index.ts';
import type { OcsfDays } from './ocsfArchive.ts';

const PARTITION = /^(history|findings)\/dt=(\d{4}-\d{2}-\d{2})\/[^/]+\.parquet$/;

/**
 * Copies the `history/` and `findings/` Parquet files of the partitions in `days` from an archive
 * store (S3) into the folder `dir`, with the same keys, so DuckDB reads them as a local archive. Only
 * lists and reads the store. With a first day, it lists each day's partition alone, so an hourly run costs
 * the same whatever the archive's age; without one (everything up to a day) it lists the datasets whole.
 * `datasets` narrows it to some of the two. Returns the files copied.
 */
export async function copyArchiveDays(
  objects: ObjectStore,
  dir: string,
  days: OcsfDays,
  datasets: readonly string[] = [archiveKeys.historyPrefix, archiveKeys.findingsPrefix],
): Promise<number> {
  let copied = 0;
  const inDays = (dt: Day) => dt <= days.untilDay && (days.fromDay === undefined || dt >= days.fromDay);
  const prefixes: string[] = [];
  for (const dataset of datasets) {
    if (days.fromDay === undefined) prefixes.push(dataset);
    else
      for (let dt = days.fromDay; dt <= days.untilDay; dt = addDays(dt, 1))
        prefixes.push(`${dataset}dt=${dt}/`);
  }
  for (const prefix of prefixes) {
    for await (const o of objects.list(prefix)) {
      const m = PARTITION.exec(o.key);
      if (m === null || !inDays(m[2] as Day)) continue;
      const body = await objects.get(o.key);
      if (body === undefined) continue;
      const path = join(dir, o.key);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, body);
      copied++;
    }
  }
  return copied;
}
