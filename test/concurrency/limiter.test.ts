import { describe, expect, it } from 'vitest';
import { Limiter } from '../../lib/foundation/concurrency/limiter.ts';

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

  it('runGated: the first exchange uses the slot the call waited for and gives it back when it ends', async () => {
    const limiter = new Limiter(1);
    const started: number[] = [];
    const exchange = gate(started, 1);
    let afterExchange: () => void = () => undefined;
    const parsing = new Promise<void>((resolve) => {
      afterExchange = resolve;
    });
    const a = limiter.runGated(async (g) => {
      const got = await g.run(exchange.call);
      await parsing; // the call's own work after its exchange (parsing a body)
      return got;
    });
    const b = gate(started, 2);
    const second = limiter.runGated((g) => g.run(b.call));
    await ticks();
    expect(started).toEqual([1]);
    exchange.finish();
    await ticks();
    // The first call is still parsing; its slot already went to the second call's exchange.
    expect(started).toEqual([1, 2]);
    expect(limiter.running).toBe(1);
    b.finish();
    afterExchange();
    expect(await Promise.all([a, second])).toEqual([1, 2]);
    expect(limiter.running).toBe(0);
  });

  it('runGated: a later exchange of the same call (a retry) waits for a slot again, behind earlier waiters', async () => {
    const limiter = new Limiter(1);
    const started: number[] = [];
    const [first, retry, other] = [1, 2, 3].map((id) => gate(started, id));
    const a = limiter.runGated(async (g) => {
      await g.run(first!.call).catch(() => undefined);
      return g.run(retry!.call);
    });
    const b = limiter.runGated((g) => g.run(other!.call));
    await ticks();
    first!.finish(false);
    await ticks();
    expect(started).toEqual([1, 3]);
    expect(limiter.running).toBe(1);
    other!.finish();
    await ticks();
    expect(started).toEqual([1, 3, 2]);
    retry!.finish();
    expect(await Promise.all([a, b])).toEqual([2, 3]);
    expect(limiter.running).toBe(0);
  });

  it('runGated: a call that never uses its gate holds its slot to its end, and gives it back once on failure', async () => {
    const limiter = new Limiter(1);
    const started: number[] = [];
    const [own, next] = [1, 2].map((id) => gate(started, id));
    const a = limiter.runGated(() => own!.call()).catch((e: Error) => e.message);
    const b = limiter.runGated((g) => g.run(next!.call));
    await ticks();
    expect(started).toEqual([1]);
    own!.finish(false);
    await ticks();
    expect(started).toEqual([1, 2]);
    expect(limiter.running).toBe(1);
    next!.finish();
    expect(await Promise.all([a, b])).toEqual(['call 1 failed', 2]);
    expect(limiter.running).toBe(0);
  });

  it('rejects a limit that is not a whole number of at least 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new Limiter(bad)).toThrow(RangeError);
  });
});
