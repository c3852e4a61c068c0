/**
 * Runs `fn` over `items` with at most `limit` in flight. On the first failure it starts nothing more,
 * waits until every call already in flight has settled, then rejects with that first error: a caller
 * that reacts to the failure (commits what a cut-short walk holds, deletes what it wrote) never races
 * work that is still running.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
