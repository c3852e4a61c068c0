/** Rows handed on without waiting between two turns of the event loop. */
const ROWS_A_TURN_MASK = 255;

/**
 * A counter of rows handed on: every 256th call gives a promise that resolves on the event loop's next
 * turn (`setImmediate`), the others nothing. Whatever hands rows on in a loop (a page's records into the
 * walk's sink, the rows that waited for ids read back) awaits it, so that an answer that arrived meanwhile
 * is read and the next request sent at once, not after the whole stretch: the walk keeps its requests in
 * flight while its thread works.
 */
export function loopTurns(): () => undefined | Promise<void> {
  let handed = 0;
  return () => ((++handed & ROWS_A_TURN_MASK) === 0 ? new Promise<void>((r) => setImmediate(r)) : undefined);
}
