import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVerifyJobHandler } from '../../../functions/verify-job/verifyJobHandler.ts';
import { createFileObjectStore } from '../../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../../lib/foundation/log/logger.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-verify-job-handler-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const handlerOver = (d: string) =>
  createVerifyJobHandler({
    objects: createFileObjectStore(d),
    clock: new ManualClock(new Date('2026-11-27T12:00:00Z')),
    logger: silentLogger,
  });

describe('createVerifyJobHandler', () => {
  it.each([
    [{ step: 'plan' }],
    [{ step: 'plan', jobId: '../escape' }],
    [{ step: 'item', jobId: 'a', head: null, item: { id: 'x', kind: 'files', folder: 'history/' } }],
    [{ step: 'nothing', jobId: 'a' }],
  ])('refuses %j as Archiver.BAD_REQUEST', async (event) => {
    await expect(handlerOver(dir)(event)).rejects.toMatchObject({ name: 'Archiver.BAD_REQUEST' });
  });

  it('names an error by its code: merging a job never planned is Archiver.NOT_FOUND', async () => {
    await expect(handlerOver(dir)({ step: 'merge', jobId: 'never' })).rejects.toMatchObject({
      name: 'Archiver.NOT_FOUND',
    });
  });

  it('plans an empty archive into the chain item alone, and merges it as the chain check fails it', async () => {
    const handler = handlerOver(dir);
    const plan = (await handler({ step: 'plan', jobId: 'empty' })) as { items: number; head: unknown };
    expect(plan).toMatchObject({ items: 1, head: null });
    await handler({ step: 'item', jobId: 'empty', head: null, item: { id: 'chain', kind: 'chain' } });
    const merged = (await handler({ step: 'merge', jobId: 'empty' })) as Record<string, unknown>;
    // An archive without a digest is not one: the chain item says so, as verify does.
    expect(merged).toMatchObject({ jobId: 'empty', ok: false, failures: 1, items: 1 });
    expect(merged.firstFailures).toEqual([expect.objectContaining({ kind: 'chain' })]);
  });
});
