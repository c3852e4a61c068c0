import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Garbage the heap and its external memory (ArrayBuffers: id sets, encoded pages, read chunks) may hold
 * above what survived the last forced collection before one is asked for: a backstop only, since
 * {@link HEAP_GROWING_PERCENT} keeps V8's own collections close to the live heap.
 */
export const HEAP_HEADROOM_BYTES = 128 * 1024 * 1024;

/**
 * How far V8 lets the old generation grow past what survived its last major collection before the next
 * one: at most 2× the live heap. V8's own factor reaches 4× while a process allocates fast, so a
 * million-record day peaked near 500 MiB RSS (260 MiB today) with under 100 MiB live.
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * The bound while the Parquet encoding worker runs: two heaps then share the process, and each grows to
 * at most 1.5× its live set. Measured with the worker on the million-record backfill and day, one run
 * each, twice: peak RSS 232–241 MiB at 100, 219–227 at 50, in times within the machine's noise
 * (bench/PROFILE.md).
 */
export const TWO_HEAPS_GROWING_PERCENT = 50;

/** The `gc` of `--expose-gc`: a full, atomic collection, or with `async`, one V8 runs incrementally. */
type Collector = (options?: { type: 'major' | 'minor'; execution: 'sync' | 'async' }) => void;

let collect: Collector | null | undefined;
let growthPercent: number | undefined;
let liveAfterLast = 0;

/**
 * V8's full collector: the process's own where it was started with `--expose-gc` (Lambda's Node runtime
 * starts every function so), else exposed without a command-line flag, which takes a new V8 context (tens
 * of ms of CPU); null where the runtime refuses.
 */
function collector(): Collector | null {
  if (collect !== undefined) return collect;
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') {
    collect = own as Collector;
    return collect;
  }
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    collect = typeof gc === 'function' ? (gc as Collector) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/**
 * Bounds V8's heap growth for the whole process (every thread) to `percent` above the live heap, unless a
 * tighter bound is already in force: the tightest asked for wins, so a thread that asks for the usual
 * bound never loosens the one set for two heaps. The flag is read at each major collection, so setting it
 * after start takes effect; a new bound also starts one major collection, incremental and concurrent
 * (V8 runs it between tasks, as its own), so the first limit under it is taken from the live heap, not
 * from the start-up garbage V8 lets pile up before its first major collection (a million-record backfill
 * with the encoding worker peaked at 241–244 MiB RSS 2.4 s into the run without it, 221–223 MiB with it,
 * in the same time). A forced, atomic collection there measured 9–13% more CPU for the run.
 * Bulk writers call this through `relieveHeap`; returns the bound in force.
 */
export function boundHeapGrowth(percent: number = HEAP_GROWING_PERCENT): number {
  if (growthPercent !== undefined && growthPercent <= percent) return growthPercent;
  growthPercent = percent;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  collector()?.({ type: 'major', execution: 'async' });
  return percent;
}

/** The heap growth bound in force in this thread ({@link boundHeapGrowth}), or undefined before the first. */
export function heapGrowthBound(): number | undefined {
  return growthPercent;
}

/**
 * Called by bulk writers every few thousand rows, and after each day. The first call bounds V8's heap
 * growth ({@link boundHeapGrowth}): V8's incremental, concurrent collections then keep a bulk run's
 * garbage (row groups already written, parsed pages) near the live heap. Forcing full collections did the
 * same, but each one cost far more than its pause: a 1M-record day forced 51 of them (0.7 s of pauses)
 * and spent 33 CPU seconds, against 25 with the bounded growth, which V8's optimised code survives. So a
 * forced collection is only a backstop, when the heap and its external memory hold more than
 * {@link HEAP_HEADROOM_BYTES} above what survived the last one. Returns whether it collected.
 */
export function relieveHeap(): boolean {
  boundHeapGrowth();
  if (held() < liveAfterLast + HEAP_HEADROOM_BYTES) return false;
  const gc = collector();
  if (!gc) return false;
  gc();
  liveAfterLast = held();
  return true;
}

/** Bytes the V8 heap uses plus the external memory (ArrayBuffers) it accounts for. */
function held(): number {
  const stats = getHeapStatistics() as ReturnType<typeof getHeapStatistics> & { external_memory?: number };
  return stats.used_heap_size + (stats.external_memory ?? 0);
}
