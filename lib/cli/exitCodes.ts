import type { ArchiverErrorCode } from '../errors/archiverError.ts';

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
    default:
      return 1;
  }
}

export const EXIT_VERIFY_GAP = 5;
