import type * as z from 'zod';
import { formatIssues } from '../records/formatIssues.ts';
import { judgeHistoryContent } from '../records/judgeHistoryContent.ts';
import {
  type ActiveSession,
  activeListSchema,
  type HistoryPage,
  pageEnvelopeSchema,
} from '../records/schemas.ts';

export { formatIssues };

/** Result of validating one response body. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: z.ZodError; summary: string };

/** The list-active response: an array of active sessions, all valid or the response is rejected. */
export function parseActiveList(json: unknown): Parsed<ActiveSession[]> {
  const result = activeListSchema.safeParse(json);
  return result.success ? { ok: true, value: result.data } : invalid(result.error);
}

/**
 * A history page: only the envelope is parsed here (a mismatch makes the whole response suspect, and it
 * is retried); its records are judged in `records/` (`judgeHistoryContent`), each alone, a bad one landing
 * in `rejected` with a reason. Never throws, whatever the JSON.
 */
export function parseHistoryPage(json: unknown, now: Date): Parsed<HistoryPage> {
  const envelope = pageEnvelopeSchema.safeParse(json);
  if (!envelope.success) return invalid(envelope.error);
  return { ok: true, value: { ...envelope.data, ...judgeHistoryContent(envelope.data.content, now) } };
}

function invalid(error: z.ZodError): Parsed<never> {
  return { ok: false, error, summary: formatIssues(error) };
}
