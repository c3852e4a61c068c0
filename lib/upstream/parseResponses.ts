import type * as z from 'zod';
import { formatIssues } from '../records/formatIssues.ts';
import {
  type ActiveSession,
  activeListSchema,
  type HistoryPage,
  type HistoryRecord,
  pageEnvelopeSchema,
  type RejectedRecord,
} from '../records/schemas.ts';
import { validateHistoryRecord } from '../records/validateHistoryRecord.ts';

export { formatIssues };

/** Result of validating one response body. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: z.ZodError; summary: string };

/** The list-active response: an array of active sessions, all valid or the response is rejected. */
export function parseActiveList(json: unknown): Parsed<ActiveSession[]> {
  const result = activeListSchema.safeParse(json);
  return result.success ? { ok: true, value: result.data } : invalid(result.error);
}

/**
 * A history page: the envelope must match (else the whole response is suspect and retried), but
 * each record is judged alone by `validateHistoryRecord` against `now` (the run clock's now); a bad
 * record lands in `rejected` with a reason and never fails the page. Never throws, whatever the JSON.
 */
export function parseHistoryPage(json: unknown, now: Date): Parsed<HistoryPage> {
  const envelope = pageEnvelopeSchema.safeParse(json);
  if (!envelope.success) return invalid(envelope.error);
  const content: HistoryRecord[] = [];
  const rejected: RejectedRecord[] = [];
  envelope.data.content.forEach((raw, index) => {
    const result = validateHistoryRecord(raw, now);
    if (result.ok) content.push(result.record);
    else rejected.push({ raw, reason: `content[${index}]: ${result.reason}` });
  });
  return { ok: true, value: { ...envelope.data, content, rejected } };
}

function invalid(error: z.ZodError): Parsed<never> {
  return { ok: false, error, summary: formatIssues(error) };
}
