import {
  type ActiveRow,
  archiveKeys,
  liveMatchesHistory,
  liveTokensOf,
  type ObjectStore,
  objectSource,
  readActiveRows,
  readRowGroups,
} from '../../archive/index.ts';
import { addDays, type Day, toDay } from '../../foundation/index.ts';

export interface LostSessionOptions {
  windowDays: number;
  /** History's ingestion lag and the next archiver run (default 24 h), as in the loss view. */
  graceHours?: number;
  now: Date;
  /**
   * Read only the active partitions from this day on (the weekly verify: what it reads does not grow with
   * the archive's age); without it, every observation, as the loss view reads them.
   */
  activeSince?: Day;
}

/**
 * The upstream-loss detector of `verify`, the same rule as the `tunnel_sessions_lost` view (which needs
 * Athena or DuckDB): sessions whose last observation is `gone`, that ended while their start was still in
 * the window (less than window − 2 days after it), at least `graceHours` ago, after the oldest archived
 * history row, and that no history row matches (same start instant, and `liveMatchesHistory` on the token
 * HMACs: history's token is the live row's join token, or both name the same virtual token, or history
 * names neither). Reads only `active/` and the history partitions of those starts, by ranges and one row group at a
 * time, keeping only the candidates (never a partition's rows).
 */
export async function countLostSessions(objects: ObjectStore, opts: LostSessionOptions): Promise<number> {
  const last = new Map<string, ActiveRow>();
  if (opts.activeSince === undefined) {
    for await (const o of objects.list(archiveKeys.activePrefix))
      if (o.key.endsWith('.parquet')) await observe(o.key);
  } else {
    for (let day = opts.activeSince; day <= toDay(opts.now); day = addDays(day, 1)) {
      for await (const o of objects.list(`${archiveKeys.activePrefix}dt=${day}/`)) {
        if (o.key.endsWith('.parquet')) await observe(o.key);
      }
    }
  }
  async function observe(key: string): Promise<void> {
    const bytes = await objects.get(key);
    if (!bytes) return;
    for (const r of await readActiveRows(bytes)) {
      const prev = last.get(r.id);
      const later =
        !prev ||
        r.observed_at.getTime() > prev.observed_at.getTime() ||
        (r.observed_at.getTime() === prev.observed_at.getTime() && r.row_id < prev.row_id);
      if (later) last.set(r.id, r);
    }
  }
  const graceMs = (opts.graceHours ?? 24) * 3_600_000;
  const ended = [...last.values()].filter(
    (r) =>
      r.event === 'gone' &&
      r.creation_time !== null &&
      r.observed_at.getTime() < r.creation_time.getTime() + (opts.windowDays - 2) * 86_400_000 &&
      r.observed_at.getTime() < opts.now.getTime() - graceMs,
  );
  if (ended.length === 0) return 0;
  // Listings come in key order, and `dt=YYYY-MM-DD` sorts by day: the first partition key is the oldest.
  // Stopping there reads one page at any age, not a listing of every day the archive holds.
  let oldestHistory = Number.POSITIVE_INFINITY;
  for await (const o of objects.list(archiveKeys.historyPrefix)) {
    const dt = /^history\/dt=(\d{4}-\d{2}-\d{2})\//.exec(o.key)?.[1];
    if (dt) {
      oldestHistory = Date.parse(`${dt}T00:00:00Z`);
      break;
    }
  }
  // Only the candidates' starts are kept; history is streamed past them one row group at a time.
  const candidatesByDt = new Map<string, Map<number, ActiveRow[]>>();
  for (const e of ended) {
    const start = e.creation_time?.getTime() ?? 0;
    if (start < oldestHistory) continue;
    const dt = toDay(new Date(start));
    const byStart = candidatesByDt.get(dt) ?? new Map<number, ActiveRow[]>();
    byStart.set(start, [...(byStart.get(start) ?? []), e]);
    candidatesByDt.set(dt, byStart);
  }
  let lost = 0;
  for (const [dt, byStart] of candidatesByDt) {
    const matched = new Set<ActiveRow>();
    for await (const o of objects.list(`${archiveKeys.historyPrefix}dt=${dt}/`)) {
      const source = objectSource(objects, o.key, o.size);
      for await (const rows of readRowGroups(source, ['start_time', 'token_hmac', 'virtual_token_hmac'])) {
        for (const r of rows) {
          const candidates = byStart.get(new Date(r.start_time as Date).getTime());
          if (!candidates) continue;
          const history = {
            token: (r.token_hmac as string | null) ?? null,
            virtual_token: (r.virtual_token_hmac as string | null) ?? null,
          };
          for (const c of candidates) if (liveMatchesHistory(liveTokensOf(c), history)) matched.add(c);
        }
      }
    }
    for (const candidates of byStart.values()) lost += candidates.filter((c) => !matched.has(c)).length;
  }
  return lost;
}
