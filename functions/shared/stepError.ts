import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

/** The error a state machine sees: named `Archiver.<CODE>` (what Retry and Catch match), message kept. */
export function stepError(error: unknown): Error {
  const code = ArchiverError.is(error) ? error.code : 'INTERNAL';
  const out = new Error(error instanceof Error ? error.message : String(error), { cause: error });
  out.name = `Archiver.${code}`;
  return out;
}
