import { describe, expect, it } from 'vitest';
import { readAhead } from '../../lib/foundation/concurrency/readAhead.ts';

async function* numbers(n: number): AsyncGenerator<number> {
  for (let i = 0; i < n; i++) yield i;
}

describe('readAhead', () => {
  it('yields in input order, with at most `limit` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out: number[] = [];
    for await (const v of readAhead(numbers(20), 3, async (i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, (20 - i) % 4));
      inFlight--;
      return i * 2;
    }))
      out.push(v);
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    expect(most).toBe(3);
  });

  it('a failed call fails the stream at its turn, not before', async () => {
    const out: number[] = [];
    const run = async () => {
      for await (const v of readAhead(numbers(5), 4, async (i) => {
        if (i === 2) throw new Error('boom at 2');
        return i;
      }))
        out.push(v);
    };
    await expect(run()).rejects.toThrow('boom at 2');
    expect(out).toEqual([0, 1]);
  });
});
