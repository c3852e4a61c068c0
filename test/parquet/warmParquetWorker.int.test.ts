import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningParquetWorker } from '../../lib/archive/parquet/parquetWorkerClient.ts';
import { warmParquetWorker } from '../../lib/archive/parquet/warmParquetWorker.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-warm-worker-'));
});
afterAll(async () => {
  await runningParquetWorker()?.terminate();
  await rm(dir, { recursive: true, force: true });
});

describe('warmParquetWorker', () => {
  it('starts the encoding worker before it first waits, and leaves no file behind', async () => {
    await runningParquetWorker()?.terminate();
    const folder = join(dir, 'run');
    const warming = warmParquetWorker(folder);
    expect(runningParquetWorker()?.alive).toBe(true);
    await warming;
    expect(runningParquetWorker()?.alive).toBe(true);
    expect(await readdir(folder)).toEqual([]);
  });

  it('begins no file once told to stop', async () => {
    const folder = join(dir, 'stopped');
    const stop = new AbortController();
    stop.abort();
    await warmParquetWorker(folder, {}, stop.signal);
    await expect(readdir(folder)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('never fails, even where its folder cannot be made', async () => {
    const file = join(dir, 'not-a-folder');
    await writeFile(file, 'x');
    await expect(warmParquetWorker(join(file, 'run'))).resolves.toBeUndefined();
  });
});
