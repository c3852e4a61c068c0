import { ArchiverError } from '../../foundation/index.ts';
import type { DayState } from '../state/dayState.ts';
import type { DayStateStore } from '../state/statePorts.ts';
import { sealRule } from './sealRule.ts';

const MAX_TRIES = 4;

/**
 * Stores a day state written by the lease holder. A conflict or an unknown outcome (a lost response that the
 * SDK retried into a CONFLICT) is settled by re-reading: when the stored state already is ours, done;
 * otherwise ours is merged onto the stored one (ages unioned, sealed kept) and written again.
 */
export async function putDayMerging(deps: { state: DayStateStore }, next: DayState): Promise<DayState> {
  let attempt = next;
  for (let i = 1; ; i++) {
    try {
      return await deps.state.putDay(attempt);
    } catch (error) {
      const stored = await deps.state.getDay(next.day);
      if (stored && sameContent(stored, attempt)) return stored;
      if (i >= MAX_TRIES || !(ArchiverError.is(error) && error.retryable)) throw error;
      attempt = {
        ...attempt,
        scannedAges: [...new Set([...(stored?.scannedAges ?? []), ...attempt.scannedAges])].sort(
          (a, b) => a - b,
        ),
        sealed: sealRule.merged(attempt, stored),
        version: stored?.version ?? 0,
      };
    }
  }
}

/** Equal but for `version`: the write we could not confirm is the one stored. */
function sameContent(a: DayState, b: DayState): boolean {
  const { version: _a, ...ra } = a;
  const { version: _b, ...rb } = b;
  return JSON.stringify(sortKeys(ra)) === JSON.stringify(sortKeys(rb));
}

function sortKeys(o: object): object {
  return Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1)));
}
