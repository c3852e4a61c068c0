import * as z from 'zod';
import { type Day, isDay } from '../../lib/foundation/clock/day.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

/** What an invocation asks for: the planned run, or a rescan of named days. */
export type ArchiveRequest =
  | { kind: 'scheduled' }
  | { kind: 'backfill'; days: Day[] }
  | { kind: 'verify' }
  | { kind: 'checksum-reports' };

const dayString = z
  .string()
  .refine(isDay, { error: (issue) => `'${String(issue.input)}' is not a calendar day YYYY-MM-DD` });

/** EventBridge's scheduled event; only `detail-type` matters, the rest is passed through. */
const scheduledEvent = z.looseObject({ 'detail-type': z.literal('Scheduled Event') });
const backfillEvent = z.strictObject({
  backfillDays: z.array(dayString).min(1, 'backfillDays is empty').max(366),
});
/** `{ "verify": true }`: check the archive (read-only) and compare it with the API; the weekly schedule sends it. */
const verifyEvent = z.strictObject({ verify: z.literal(true) });
/** `{ "checksumReports": true }`: judge the reports of the weekly verify's checksum jobs that are done (daily). */
const checksumReportsEvent = z.strictObject({ checksumReports: z.literal(true) });
/** `{}`: what `aws lambda invoke` and the console's test button send for "run now". */
const emptyEvent = z.strictObject({});

export const EXPECTED_EVENT =
  'an EventBridge scheduled event, {} to run now, {"backfillDays": ["YYYY-MM-DD", ...]} to rescan days, {"verify": true} to verify the archive, or {"checksumReports": true} to judge finished checksum jobs';

/**
 * Parses the invocation payload at the boundary. Anything else is `BAD_REQUEST` with the zod issues as
 * `cause`, so a mistyped manual backfill fails loudly instead of silently running the plan.
 */
export function parseArchiveEvent(event: unknown): ArchiveRequest {
  if (scheduledEvent.safeParse(event).success || emptyEvent.safeParse(event).success)
    return { kind: 'scheduled' };
  if (verifyEvent.safeParse(event).success) return { kind: 'verify' };
  if (checksumReportsEvent.safeParse(event).success) return { kind: 'checksum-reports' };
  const backfill = backfillEvent.safeParse(event);
  if (backfill.success) return { kind: 'backfill', days: [...new Set(backfill.data.backfillDays)].sort() };
  const looksLikeBackfill = typeof event === 'object' && event !== null && 'backfillDays' in event;
  const detail = looksLikeBackfill ? `: ${backfill.error.issues.map((i) => i.message).join('; ')}` : '';
  throw new ArchiverError('BAD_REQUEST', `Invalid event: expected ${EXPECTED_EVENT}${detail}`, {
    cause: backfill.error,
  });
}
