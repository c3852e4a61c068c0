import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import {
  boundHeapGrowth,
  HEAP_GROWING_PERCENT,
  HEAP_HEADROOM_BYTES,
  relieveHeap,
  TWO_HEAPS_GROWING_PERCENT,
} from '../../lib/foundation/process/relieveHeap.ts';

describe('relieveHeap', () => {
  it('collects once the heap holds more than the headroom of garbage, and not again right after', () => {
    relieveHeap();
    // Kept alive until the line before the call: V8 cannot collect it early, whatever its own timing,
    // so the garbage relieveHeap sees is exactly this (no allocation happens between the two lines).
    let junk: string[] | undefined = Array.from({ length: 2_400_000 }, (_, k) => `${k}-${'x'.repeat(48)}`);
    expect(junk).toHaveLength(2_400_000);
    const before = getHeapStatistics().used_heap_size;
    expect(before).toBeGreaterThan(HEAP_HEADROOM_BYTES);
    junk = undefined;
    expect(relieveHeap()).toBe(true);
    const after = getHeapStatistics().used_heap_size;
    expect(junk).toBeUndefined();
    expect(before - after).toBeGreaterThan(HEAP_HEADROOM_BYTES / 2);
    expect(relieveHeap()).toBe(false);
  });

  it('keeps the tightest heap growth bound asked for, whatever the order', () => {
    expect(TWO_HEAPS_GROWING_PERCENT).toBeLessThan(HEAP_GROWING_PERCENT);
    // relieveHeap (above) asked for the usual bound; the two-heap one tightens it and then holds.
    expect(boundHeapGrowth()).toBe(HEAP_GROWING_PERCENT);
    expect(boundHeapGrowth(TWO_HEAPS_GROWING_PERCENT)).toBe(TWO_HEAPS_GROWING_PERCENT);
    expect(boundHeapGrowth()).toBe(TWO_HEAPS_GROWING_PERCENT);
    expect(boundHeapGrowth(HEAP_GROWING_PERCENT + 50)).toBe(TWO_HEAPS_GROWING_PERCENT);
    expect(relieveHeap()).toBe(false);
    expect(boundHeapGrowth()).toBe(TWO_HEAPS_GROWING_PERCENT);
  });
});
