/** Rows handed on without waiting between two turns of the event loop. */
const ROWS_A_TURN_MASK = 255;

/**
 * Paces a loop that hands rows on: given what handing one row on returned, it gives that back when the row
 * made the loop wait, and otherwise, every 256th row, a promise that resolves on the event loop's next turn
 * (`setImmediate`); else nothing. Whatever hands rows on in a loop (a page's records into the walk's sink,
 * the rows that waited for ids read back) awaits what it gives, so that an answer that arrived meanwhile is
 * read and the next request sent at once, not after the whole stretch: the walk keeps its requests in
 * flight while its thread works. A row that needs no wait costs no `await`.
 */
export function loopTurns(): (pending: undefined | Promise<void>) => undefined | Promise<void> {
  let handed = 0;
  return (pending) =>
    pending ?? ((++handed & ROWS_A_TURN_MASK) === 0 ? new Promise<void>((r) => setImmediate(r)) : undefined);
}
