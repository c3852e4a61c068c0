import { request } from 'undici';
import { EMULATOR_PAID_KEY } from '../devkit/startEmulator.ts';
import { benchDispatcher } from './fetchBound.ts';

export interface IdealFetchResult {
  requests: number;
  seconds: number;
  /** CPU seconds of the process (idealChild only). */
  cpuSeconds?: number;
}

/**
 * The least time `paths` can take at `concurrency` requests in flight, for any client that fetches and
 * `JSON.parse`s every answer: a floor under a latency bound, not an archiver. Every request is known
 * ahead (no client can know a day's page count before its page 0 answers: this one does), a slot is
 * freed as soon as an answer's body has been read, and the body is parsed after that, outside the slot,
 * so no parse ever delays a request. What it still pays, and `pages × latency ÷ concurrency` does not:
 * the server writing each body and the client reading it, on this machine. Over one keep-alive pool of
 * `concurrency` connections.
 */
export async function idealFetch(
  baseUrl: string,
  paths: readonly string[],
  opts: { concurrency: number },
): Promise<IdealFetchResult> {
  const dispatcher = benchDispatcher(opts.concurrency);
  let next = 0;
  const parsed: Promise<void>[] = [];
  const lane = async (): Promise<void> => {
    while (next < paths.length) {
      const path = paths[next++] as string;
      const res = await request(`${baseUrl}${path}`, {
        dispatcher,
        headers: { authorization: `Bearer ${EMULATOR_PAID_KEY}` },
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`ideal fetch ${path}: HTTP ${res.statusCode}`);
      // Parsed in a later turn of the event loop: the lane's next request goes out first.
      parsed.push(
        new Promise((resolve, reject) =>
          setImmediate(() => {
            try {
              JSON.parse(text);
              resolve();
            } catch (error) {
              reject(error);
            }
          }),
        ),
      );
    }
  };
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, lane));
    await Promise.all(parsed);
    return { requests: paths.length, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await dispatcher.close();
  }
}
