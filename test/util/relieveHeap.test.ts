import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { HEAP_HEADROOM_BYTES, relieveHeap } from '../../lib/util/relieveHeap.ts';

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
});
