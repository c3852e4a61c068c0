import type { EventEmitter } from 'node:events';

/** The errors a write gets once the reading end of its pipe is gone (`status | head -1`). */
const CLOSED_OUTPUT = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);
const guarded = new WeakSet<object>();

/** What the guard needs of a stream: its error events, and whether it is destroyed. */
export interface GuardedStream extends EventEmitter {
  destroyed: boolean;
  write(chunk: string): boolean;
}

/**
 * Makes a process output stream end quietly when its reader goes away, as Unix tools do: a pipe
 * closed early (`tunnel-archiver status | head -1`) makes Node emit `EPIPE` on the stream, which
 * unhandled would crash the process with a stack trace. Here that error is taken as "nobody reads
 * this any more": later writes are dropped and the command finishes with its own exit code (a run
 * still commits what it holds: nothing it must do depends on its output being read). Any other
 * stream error is still thrown.
 */
export function endQuietlyWhenClosed<S extends GuardedStream>(stream: S): (s: string) => boolean {
  if (!guarded.has(stream)) {
    guarded.add(stream);
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (CLOSED_OUTPUT.has(error.code ?? '')) return;
      throw error;
    });
  }
  return (s) => (stream.destroyed ? false : stream.write(s));
}
