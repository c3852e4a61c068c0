import { overLimitStandIn, recordOverLimit } from './recordLimits.ts';
import type { HistoryRecord, RejectedRecord } from './schemas.ts';
import { validateHistoryRecord } from './validateHistoryRecord.ts';

/**
 * A history page's items, each judged alone by `validateHistoryRecord` against `now` (the run clock's
 * now): the valid ones, and the rejected ones with their position and reason. An item past a record
 * limit (`RECORD_LIMITS`: too deep, too many values, too much text) is rejected first, as its bounded
 * stand-in (`overLimitStandIn`), so nothing after this ever walks it. A bad record never fails its page;
 * never throws, whatever the items.
 */
export function judgeHistoryContent(
  items: readonly unknown[],
  now: Date,
): { content: HistoryRecord[]; rejected: RejectedRecord[] } {
  const content: HistoryRecord[] = [];
  const rejected: RejectedRecord[] = [];
  items.forEach((raw, index) => {
    const over = recordOverLimit(raw);
    if (over !== undefined) {
      rejected.push({ raw: overLimitStandIn(raw, over), reason: `content[${index}]: ${over.reason}` });
      return;
    }
    const result = validateHistoryRecord(raw, now);
    if (result.ok) content.push(result.record);
    else rejected.push({ raw, reason: `content[${index}]: ${result.reason}` });
  });
  return { content, rejected };
}
