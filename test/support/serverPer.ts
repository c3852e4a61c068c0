import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

interface Closable {
  close(): Promise<void>;
}

/**
 * A server (dynalite, s3rver...) held in a slot: `start` starts a fresh one, `stop` closes it, and `server`
 * reads through to whichever is current, so tests write `dynamo.client` as if they held the handle.
 */
export function serverSlot<T extends Closable>(
  start: () => Promise<T>,
): { server: T; start(): Promise<void>; stop(): Promise<void> } {
  let current: T | undefined;
  const server = new Proxy({} as T, {
    get: (_target, name) => {
      if (current === undefined) throw new Error('the server is not started (or already stopped)');
      return Reflect.get(current, name);
    },
  });
  return {
    server,
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
