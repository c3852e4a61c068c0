import type { Writable } from 'node:stream';

/** What a write to a pipe whose reader has gone fails with. */
const CLOSED_PIPE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * Lets writes to a child's stdin fail quietly once the child has gone: a child that exits without reading
 * its input (or dies while it is written) closes the pipe, and the write's EPIPE, with no listener, would
 * be an uncaught exception of the test process, not a failure of the child, whose exit code and output
 * say what happened. Any other error of the stream is thrown as before.
 */
export function ignoreClosedPipe(stdin: Writable | null | undefined): void {
  stdin?.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== undefined && CLOSED_PIPE.has(error.code)) return;
    throw error;
  });
}
