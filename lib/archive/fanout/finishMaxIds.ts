import { MAX_DAY_SESSIONS } from '../config/walkLimits.ts';

/**
 * Most ids of one day the fan-out's finish step takes the union of: the largest day `npm run bench --
 * --only=finish-union` measured within the engine's 1769 MiB (26M ids peaked at 1133 MiB; the set grows by
 * half when 70% full, and 40M peaked at 3000 MiB). `test/docs/fanoutFigures.test.ts` holds it to
 * bench/RESULTS.json. A day past it is failed with `DAY_TOO_BIG` before its union is taken, so it cannot
 * take the step, and every other day of the orchestration, down with it.
 */
export const FINISH_MAX_IDS = MAX_DAY_SESSIONS;
