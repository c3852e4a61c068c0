import type { ArchiverErrorCode } from '../foundation/index.ts';

/** Every exit code of the CLI with what it tells a person; the table in docs/cli.md is tested against it. */
export const EXIT_CODES = [
  { code: 0, meaning: 'success' },
  {
    code: 1,
    meaning: 'failure (upstream unavailable after the retry budget, unreachable host, store error)',
  },
  {
    code: 2,
    meaning: 'bad invocation or configuration (the message names the flag or variable and the value)',
  },
  { code: 3, meaning: 'API key rejected (HTTP 401): wrong or revoked key' },
  { code: 4, meaning: 'paid plan required (HTTP 403)' },
  { code: 5, meaning: '`verify` found a problem' },
  { code: 6, meaning: 'another run holds the lease' },
  {
    code: 7,
    meaning:
      'partial: the run finished, but some days failed (listed in the summary); the next run retries them',
  },
  { code: 8, meaning: "`query`'s SQL failed (syntax, unknown table or column); the message is the engine's" },
  {
    code: 9,
    meaning: '`detect --fail-on`: a finding at or above that severity (or a failed `detect --test`)',
  },
] as const;

export const EXIT_OK = 0;
export const EXIT_VERIFY_GAP = 5;
/** The run went on past failed days (`summary.failedDays` is not empty). */
export const EXIT_PARTIAL = 7;
/** `detect --fail-on SEVERITY` saw a finding at or above it, or `detect --test` failed. */
export const EXIT_FINDINGS = 9;

/** Process exit code for each failure a person must act on differently. */
export function exitCodeFor(code: ArchiverErrorCode): number {
  switch (code) {
    case 'CONFIG_INVALID':
    case 'OUTSIDE_WINDOW':
      return 2;
    case 'AUTH_REJECTED':
      return 3;
    case 'PLAN_REQUIRED':
      return 4;
    case 'LEASE_HELD':
      return 6;
    case 'QUERY_FAILED':
      return 8;
    default:
      return 1;
  }
}
