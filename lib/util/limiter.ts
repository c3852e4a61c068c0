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
    if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next waiter (the count stays), or is given back.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
