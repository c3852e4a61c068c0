import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/**
 * A private temp folder (`tmp.dir`) for the enclosing `describe` or file (`scope: 'file'`), or a fresh one
 * for every test (`scope: 'test'`); removed with everything in it afterwards.
 */
export function tempDirPer(prefix: string, scope: 'file' | 'test' = 'file'): { readonly dir: string } {
  let current: string | undefined;
  const make = async () => {
    current = await mkdtemp(join(tmpdir(), prefix));
  };
  const remove = async () => {
    if (current !== undefined) await rm(current, { recursive: true, force: true });
    current = undefined;
  };
  if (scope === 'file') {
    beforeAll(make);
    afterAll(remove);
  } else {
    beforeEach(make);
    afterEach(remove);
  }
  return {
    get dir(): string {
      if (current === undefined) throw new Error('the temp folder exists only while a test runs');
      return current;
    },
  };
}
