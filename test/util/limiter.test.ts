import { describe, expect, it } from 'vitest';
import { Limiter } from '../../lib/util/limiter.ts';

/** A call that runs until `finish` is called, recording when it started. */
function gate(started: number[], id: number) {
  let finish: (ok: boolean) => void = () => undefined;
  const call = () =>
    new Promise<number>((resolve, reject) => {
      started.push(id);
      finish = (ok) => (ok ? resolve(id) : reject(new Error(`call ${id} failed`)));
    });
  return { call, finish: (ok = true) => finish(ok) };
}

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise(setImmediate);
};

describe('Limiter', () => {
  it('runs at most `limit` calls at once, the others in the order they came, and frees a slot on failure', async () => {
    const limiter = new Limiter(2);
    const started: number[] = [];
    const gates = [1, 2, 3, 4].map((id) => gate(started, id));
    const results = gates.map((g) => limiter.run(g.call).catch((e: Error) => e.message));
    await ticks();
    expect(started).toEqual([1, 2]);
    expect(limiter.running).toBe(2);
    gates[1]?.finish(false);
    await ticks();
    expect(started).toEqual([1, 2, 3]);
    expect(limiter.running).toBe(2);
    gates[0]?.finish();
    await ticks();
    expect(started).toEqual([1, 2, 3, 4]);
    gates[2]?.finish();
    gates[3]?.finish();
    expect(await Promise.all(results)).toEqual([1, 'call 2 failed', 3, 4]);
    expect(limiter.running).toBe(0);
  });

  it('lets no newcomer overtake a waiter when a slot passes on', async () => {
    const limiter = new Limiter(1);
    const started: number[] = [];
    const [a, b, c] = [1, 2, 3].map((id) => gate(started, id));
    const runs = [limiter.run(a!.call), limiter.run(b!.call)];
    await ticks();
    a!.finish();
    // Comes after 2 was woken but before it ran: it must wait its turn.
    runs.push(limiter.run(c!.call));
    await ticks();
    expect(started).toEqual([1, 2]);
    b!.finish();
    await ticks();
    c!.finish();
    expect(await Promise.all(runs)).toEqual([1, 2, 3]);
  });

  it('rejects a limit that is not a whole number of at least 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new Limiter(bad)).toThrow(RangeError);
  });
});
