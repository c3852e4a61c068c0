import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

interface Closable {
  close(): Promise<void>;
}

/** An object that reads through to whatever `current()` returns at the time of each access. */
export function readThrough<T extends object>(current: () => T | undefined, what = 'the server'): T {
  return new Proxy({} as T, {
    get: (_target, name) => {
      const now = current();
      if (now === undefined) throw new Error(`${what} is not started (or already stopped)`);
      return Reflect.get(now, name);
    },
  });
}

/**
 * A server (dynalite, s3rver...) held in a slot: `start` starts a fresh one, `stop` closes it, and `server`
 * reads through to whichever is current, so tests write `dynamo.client` as if they held the handle.
 */
export function serverSlot<T extends Closable>(
  start: () => Promise<T>,
): { server: T; start(): Promise<void>; stop(): Promise<void> } {
  let current: T | undefined;
  return {
    server: readThrough(() => current),
    start: async () => {
      current = await start();
    },
    stop: async () => {
      await current?.close();
      current = undefined;
    },
  };
}

/**
 * A server for the enclosing `describe`: started before its tests and closed after them (`scope: 'file'`),
 * or a fresh one for every test (`scope: 'test'`). Every test that starts a server stops it.
 */
export function serverPer<T extends Closable>(start: () => Promise<T>, scope: 'file' | 'test' = 'file'): T {
  const slot = serverSlot(start);
  if (scope === 'file') {
    beforeAll(slot.start);
    afterAll(slot.stop);
  } else {
    beforeEach(slot.start);
    afterEach(slot.stop);
  }
  return slot.server;
}
