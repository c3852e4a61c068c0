import {
  activeKeys,
  archiveKeys,
  dataKeyInfo,
  type ObjectInfo,
  type ObjectStore,
  objectSource,
  readRowGroups,
} from '../../archive/index.ts';
import { mapLimit } from '../../foundation/index.ts';
import type { LivePoint, ModeCount } from './reportModel.ts';

const READ_CONCURRENCY = 8;

async function parquetObjects(objects: ObjectStore, prefix: string): Promise<ObjectInfo[]> {
  const out: ObjectInfo[] = [];
  for await (const o of objects.list(prefix)) if (o.key.endsWith('.parquet')) out.push(o);
  return out;
}

/**
 * Sessions per day and mode: the `mode` column of every published `history/` file, read by ranges
 * (only that column's pages are fetched), so it works the same on `file://` and `s3://`.
 */
export async function readSessionsByMode(objects: ObjectStore): Promise<ModeCount[]> {
  const counts = new Map<string, number>();
  const files = await parquetObjects(objects, archiveKeys.historyPrefix);
  await mapLimit(files, READ_CONCURRENCY, async (f) => {
    const dt = dataKeyInfo(f.key).dt;
    if (dt === null) return;
    for await (const rows of readRowGroups(objectSource(objects, f.key, f.size), ['mode'])) {
      for (const row of rows) {
        const k = `${dt}\u0000${String(row.mode)}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    }
  });
  return [...counts]
    .map(([k, sessions]) => {
      const [day = '', mode = ''] = k.split('\u0000');
      return { day, mode, sessions };
    })
    .sort((a, b) => a.day.localeCompare(b.day) || a.mode.localeCompare(b.mode));
}

/**
 * Sessions open at each snapshot of `active/`: a session's first row there is `seen` and its last is
 * `gone`, so the open count is the running sum of one per `seen` less one per `gone`, in snapshot order.
 */
export async function readLiveSeries(objects: ObjectStore): Promise<LivePoint[]> {
  const delta = new Map<string, number>();
  const files = await parquetObjects(objects, activeKeys.prefix);
  await mapLimit(files, READ_CONCURRENCY, async (f) => {
    for await (const rows of readRowGroups(objectSource(objects, f.key, f.size), ['observed_at', 'event'])) {
      for (const row of rows) {
        const at = (row.observed_at as Date).toISOString();
        const d = row.event === 'seen' ? 1 : row.event === 'gone' ? -1 : 0;
        delta.set(at, (delta.get(at) ?? 0) + d);
      }
    }
  });
  let open = 0;
  return [...delta.keys()].sort().map((at) => {
    open += delta.get(at) ?? 0;
    return { at, open };
  });
}
