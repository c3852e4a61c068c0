import type { z } from 'zod';
import {
  type ActiveSession,
  activeListSchema,
  type HistoryPage,
  type HistoryRecord,
  historyRecordSchema,
  pageEnvelopeSchema,
  type RejectedRecord,
} from './schemas.ts';

/** Result of validating one response body. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: z.ZodError; summary: string };

/** The list-active response: an array of active sessions, all valid or the response is rejected. */
export function parseActiveList(json: unknown): Parsed<ActiveSession[]> {
  const result = activeListSchema.safeParse(json);
  return result.success ? { ok: true, value: result.data } : invalid(result.error);
}

/**
 * A history page: the envelope must match (else the whole response is suspect and retried), but
 * each record is judged alone; a bad record lands in `rejected` with a reason and never fails the page.
 */
export function parseHistoryPage(json: unknown): Parsed<HistoryPage> {
  const envelope = pageEnvelopeSchema.safeParse(json);
  if (!envelope.success) return invalid(envelope.error);
  const content: HistoryRecord[] = [];
  const rejected: RejectedRecord[] = [];
  envelope.data.content.forEach((raw, index) => {
    const record = historyRecordSchema.safeParse(raw);
    if (record.success) content.push(record.data);
    else rejected.push({ raw, reason: `content[${index}]: ${formatIssues(record.error)}` });
  });
  return { ok: true, value: { ...envelope.data, content, rejected } };
}

/** zod issues as one readable line: `path: message; path: message`. */
export function formatIssues(error: z.ZodError, max = 5): string {
  const lines = error.issues
    .slice(0, max)
    .map((issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`);
  const more = error.issues.length > max ? `; and ${error.issues.length - max} more` : '';
  return `${lines.join('; ')}${more}`;
}

function invalid(error: z.ZodError): Parsed<never> {
  return { ok: false, error, summary: formatIssues(error) };
}
