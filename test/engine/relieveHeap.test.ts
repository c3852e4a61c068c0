import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { HEAP_HEADROOM_BYTES, relieveHeap } from '../../lib/engine/relieveHeap.ts';

describe('relieveHeap', () => {
  it('collects once the heap holds more than the headroom of garbage, and not again right after', () => {
    relieveHeap();
    // Garbage: strings built and dropped, well over the headroom.
    let keep = 0;
    for (let i = 0; i < 6; i++) {
      const junk = Array.from({ length: 200_000 }, (_, k) => `${i}-${k}-${'x'.repeat(40)}`);
      keep += junk.length;
    }
    expect(keep).toBe(1_200_000);
    const before = getHeapStatistics().used_heap_size;
    expect(relieveHeap()).toBe(true);
    const after = getHeapStatistics().used_heap_size;
    expect(before - after).toBeGreaterThan(HEAP_HEADROOM_BYTES / 2);
    expect(relieveHeap()).toBe(false);
  });
});
