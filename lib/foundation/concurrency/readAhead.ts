/**
 * Maps an async stream with up to `limit` calls of `fn` in flight, yielding the results in the input's
 * order: the next items' work (network reads, hashing) overlaps the caller's work on the current one,
 * while memory stays bounded by `limit` results waiting.
 */
export async function* readAhead<T, R>(
  items: AsyncIterable<T>,
  limit: number,
  fn: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const queue: Promise<R>[] = [];
  const iterator = items[Symbol.asyncIterator]();
  let done = false;
  const fill = async () => {
    while (!done && queue.length < limit) {
      const next = await iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      const pending = fn(next.value);
      pending.catch(() => undefined); // observed when its turn comes; never an unhandled rejection
      queue.push(pending);
    }
  };
  try {
    await fill();
    while (queue.length > 0) {
      const result = await (queue.shift() as Promise<R>);
      await fill();
      yield result;
    }
  } finally {
    if (!done) await iterator.return?.();
  }
}
