/** The injected notion of time. `lib` never calls `Date.now()` directly. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms` (or rejects with the signal's reason when aborted). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A clock fixed at `start` that only moves when `sleep` is called or `advance` is used (tests). */
export class ManualClock implements Clock {
  #t: number;
  constructor(start: Date | string) {
    this.#t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#t);
  }
  advance(ms: number): void {
    this.#t += ms;
  }
  set(t: Date | string): void {
    this.#t = new Date(t).getTime();
  }
  async sleep(ms: number): Promise<void> {
    this.#t += ms;
  }
}
