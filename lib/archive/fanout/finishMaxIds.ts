import { MAX_DAY_SESSIONS } from '../config/walkLimits.ts';

/**
 * Most ids of one day the fan-out's finish step takes the union of: the largest day the archive proves
 * (`MAX_DAY_SESSIONS`, which says how `finish-union` measured it). A day past it is failed with
 * `DAY_TOO_BIG` before its union is taken, so it cannot take the step, and every other day of the
 * orchestration, down with it.
 */
export const FINISH_MAX_IDS = MAX_DAY_SESSIONS;
