import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Garbage the heap and its external memory (ArrayBuffers: id sets, encoded pages, read chunks) may hold
 * above what survived the last collection before one is asked for.
 */
export const HEAP_HEADROOM_BYTES = 32 * 1024 * 1024;

let collect: (() => void) | null | undefined;
let liveAfterLast = 0;

/** V8's full collector, exposed without a command-line flag; null where the runtime refuses. */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    collect = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/**
 * Called by bulk writers every few thousand rows, and after each day: when the heap (with its external
 * memory) holds more than {@link HEAP_HEADROOM_BYTES} above what survived the last full collection, asks
 * V8 for one. V8 left alone lets a bulk run's garbage
 * (row groups already written, parsed pages) pile up to several times the live heap before collecting, so
 * a million-record day peaked at about 500 MiB RSS with under 100 MiB live; this keeps the heap at live +
 * headroom without capping it (a heap that is really needed still grows). Returns whether it collected.
 */
export function relieveHeap(): boolean {
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
