import { afterAll, describe, expect, it } from 'vitest';
import { boundHeapGrowth, HEAP_GROWING_PERCENT } from '../../lib/foundation/process/relieveHeap.ts';

// This file's module state is its own (vitest isolates files): the collector is looked up once, below.
describe('the collector of a process started with --expose-gc (as Lambda starts a function)', () => {
  const had = Object.getOwnPropertyDescriptor(globalThis, 'gc');
  afterAll(() => {
    if (had) Object.defineProperty(globalThis, 'gc', had);
    else delete (globalThis as { gc?: unknown }).gc;
  });

  it("is the process's own gc, called for the bound's first collection (no new V8 context to reach one)", () => {
    const calls: unknown[] = [];
    (globalThis as { gc?: unknown }).gc = (options?: unknown) => void calls.push(options);
    expect(boundHeapGrowth()).toBe(HEAP_GROWING_PERCENT);
    expect(calls).toEqual([{ type: 'major', execution: 'async' }]);
  });
});
