import { keyRecord } from '../../lib/archive/records/keyedRecord.ts';
import { DistinctRows, type WalkOptions } from '../../lib/archive/walk/walkDay.ts';
import type { Clock } from '../../lib/foundation/clock/clock.ts';

/**
 * Walk options for engine tests: pages of 2,000, two requests in flight, 10 passes, 50 pages a day,
 * rows under the hash token policy archived at `clock`'s now, a sink that only counts; `extra` wins.
 */
export function walkOptions(
  tokenKey: Uint8Array,
  clock: Clock,
  extra: Partial<WalkOptions> = {},
): WalkOptions {
  return {
    pageSize: 2000,
    concurrency: 2,
    maxPasses: 10,
    maxPagesPerDay: 50,
    sink: new DistinctRows(() => undefined),
    tokenKey,
    keyRecord: (r) => keyRecord(r, { tokenPolicy: 'hash', tokenKey, archivedAt: clock.now() }),
    ...extra,
  };
}
