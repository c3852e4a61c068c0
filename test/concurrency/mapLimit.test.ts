import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../lib/foundation/concurrency/mapLimit.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('mapLimit', () => {
  it('keeps results in input order with at most `limit` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++inFlight);
      for (let i = 0; i < n; i++) await tick();
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('on a failure starts nothing more, and rejects only once every call in flight has settled', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const boom = new Error('boom');
    const run = mapLimit([0, 1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 1) {
        await tick();
        throw boom;
      }
      // Item 0 is still running when item 1 fails; it must finish before mapLimit settles.
      for (let i = 0; i < (n === 0 ? 10 : 1); i++) await tick();
      finished.push(n);
      return n;
    });
    await expect(run).rejects.toBe(boom);
    expect(finished).toContain(0);
    expect(started).toEqual([0, 1]);
  });

  it('rejects with the first failure when several fail', async () => {
    const run = mapLimit([1, 2, 3], 3, async (n) => {
      for (let i = 0; i < n; i++) await tick();
      throw new Error(`fail ${n}`);
    });
    await expect(run).rejects.toThrow('fail 1');
  });
});
