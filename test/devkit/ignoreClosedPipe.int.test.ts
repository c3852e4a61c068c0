import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paste } from '../docs/documentedCommandsWorld.ts';

describe('a documented command pasted with input it never reads', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ta-closed-pipe-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('is judged by its exit code and output; the write its exit cut short is no error of the test process', async () => {
    const uncaught: unknown[] = [];
    const note = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', note);
    try {
      // Far more than a pipe holds: the shell exits with most of it unwritten, so the write meets EPIPE.
      const r = await paste('echo gone; exit 3', {
        cwd,
        env: { PATH: process.env.PATH ?? '' },
        input: 'x'.repeat(8 * 1024 * 1024),
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(r).toMatchObject({ code: 3, stdout: 'gone\n' });
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', note);
    }
  });
});
