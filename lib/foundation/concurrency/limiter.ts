/**
 * At most `limit` calls of `run` at once; the others wait their turn, first come first served. Unlike
 * `mapLimit` it limits one step of a task (a page's request) rather than the whole task, so the tasks
 * around it can do their other work (absorbing a fetched page) while the next requests are in flight.
 */
export class Limiter {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`limit must be an integer >= 1, got ${limit}`);
    this.#limit = limit;
  }

  /** Calls in progress now (for tests and logs). */
  get running(): number {
    return this.#running;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.#acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /**
   * Like `run`, for a call that holds a slot only while it exchanges bytes with a server: `call` gets a
   * gate, and runs each exchange in it. Its first exchange uses the slot this call waited for, which is
   * given back as soon as that exchange ends (so the call's remaining work, such as parsing what came
   * back, holds no slot); a later exchange (a retry) waits for a slot again. A call that never uses the
   * gate holds its slot to its end, as with `run`.
   */
  async runGated<T>(
    call: (gate: { run<E>(exchange: () => Promise<E>): Promise<E> }) => Promise<T>,
  ): Promise<T> {
    let held: (() => void) | undefined = await this.#acquire();
    const gate = {
      run: async <E>(exchange: () => Promise<E>): Promise<E> => {
        const release = held ?? (await this.#acquire());
        held = undefined;
        try {
          return await exchange();
        } finally {
          release();
        }
      },
    };
    try {
      return await call(gate);
    } finally {
      held?.();
      held = undefined;
    }
  }

  /** Waits for a slot; the function it gives back returns the slot, once, whatever calls it after. */
  async #acquire(): Promise<() => void> {
    if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter (the count stays), or is given back.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    };
  }
}
