/**
 * The foundation's public entry point: what the other groups of lib/ use of it (errors, the clock and days,
 * logging, URLs, ids, processes, concurrency, fingerprints). The foundation imports no other group, and no
 * package a bundle of it could not hold: every bundle (the Lambda's, the encoding worker's) loads it.
 */

export type { Clock } from './clock/clock.ts';
export { ManualClock, systemClock } from './clock/clock.ts';
export type { Day } from './clock/day.ts';
export { addDays, dayOfMs, dayRange, daysBetween, isDay, toDay } from './clock/day.ts';
export type { DeadlineBudget } from './clock/deadlineBudget.ts';
export { budgetFromRemaining, unboundedBudget } from './clock/deadlineBudget.ts';
export { offsetClock } from './clock/offsetClock.ts';
export { mayStillBeOpen } from './clock/openDay.ts';
export { Limiter } from './concurrency/limiter.ts';
export { mapLimit } from './concurrency/mapLimit.ts';
export { readAhead } from './concurrency/readAhead.ts';
export type { ArchiverErrorCode } from './errors/archiverError.ts';
export { ArchiverError, ERROR_CODES } from './errors/archiverError.ts';
export { sourceFingerprint } from './fingerprint/sourceFingerprint.js';
export { sha256OfFile } from './fs/sha256OfFile.ts';
export { ID_BYTES, IdSet, presizedFor } from './ids/idSet.ts';
export { mix32 } from './ids/mix32.ts';
export type { Logger } from './log/logger.ts';
export { silentLogger } from './log/logger.ts';
export { terminalJson, terminalText } from './log/terminalText.ts';
export type { CpuHost } from './process/cpuCapacity.ts';
export { cpuCapacity } from './process/cpuCapacity.ts';
export { tryKernelLock } from './process/kernelLock.ts';
export { makeRunTmpDir } from './process/makeRunTmpDir.ts';
export type { IncarnationLiveness } from './process/processIncarnation.ts';
export { PROCESS_INCARNATION } from './process/processIncarnation.ts';
export { holdProcessLiveness, incarnationLiveness, isIncarnationDead } from './process/processLiveness.ts';
export {
  boundHeapGrowth,
  heapGrowthBound,
  relieveHeap,
  TWO_HEAPS_GROWING_PERCENT,
} from './process/relieveHeap.ts';
export { ensureRunFolder, removeRunFolder } from './process/runFolder.ts';
export { cleartextProblem } from './url/cleartextUrl.ts';
export { parseDestUrl, parseStateUrl } from './url/storeUrl.ts';
