import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliKeysDir, runCli } from '../../devkit/runCli.ts';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { appendDigest } from '../../lib/archive/digest/appendDigest.ts';
import { loadLocalKeys } from '../../lib/archive/keys/loadLocalKeys.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import type { VerifyResult } from '../../lib/integrity/verify/verifyTypes.ts';
import { archivedIds, SMALL_DATASET } from '../support/engineKit.ts';

const NOW = '2026-10-01T06:00:00.000Z';
let emulator: EmulatorHandle;
let dir: string;
let dest: string;
const env = { TUNNEL_API_KEY: EMULATOR_PAID_KEY, LOG_LEVEL: 'error' };
const args = (d: string) => ['--now', NOW, '--base-url', emulator.url, '--dest', `file://${d}`];
/** `recover` reads the archive only: it takes no API flag. */
const archiveArgs = (d: string) => ['--now', NOW, '--dest', `file://${d}`];

/** What the engine will do after each run once it calls appendDigest itself. */
async function digest(d: string): Promise<void> {
  const { signer } = await loadLocalKeys(cliKeysDir(d));
  await appendDigest(
    { objects: createFileObjectStore(d), signer, clock: new ManualClock(NOW), logger: silentLogger },
    { runId: 'cli', scans: [] },
  );
}

beforeAll(async () => {
  emulator = await startEmulator({ seed: 3, clock: new ManualClock(NOW), dataset: SMALL_DATASET });
  dir = await mkdtemp(join(tmpdir(), 'ta-verify-cli-'));
  dest = join(dir, 'archive');
  const r = await runCli(['run', ...args(dest)], env);
  expect(r.code, r.stderr).toBe(0);
  await digest(dest);
});
afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('tunnel-archiver verify', () => {
  it('checks an intact archive read-only, with no API key and no state: exit 0', async () => {
    const auditor = join(dir, 'auditor-copy');
    await cp(dest, auditor, {
      recursive: true,
      filter: (src) => !src.includes('.state') && !src.includes('.keys'),
    });
    const r = await runCli(['verify', '--now', NOW, '--dest', `file://${auditor}`], { LOG_LEVEL: 'error' });
    expect(r.stdout).toContain('verify OK');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain('No TUNNEL_API_KEY');
  });

  it('compares with the API and prints JSON with --json', async () => {
    const r = await runCli(['verify', ...args(dest), '--json'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as VerifyResult;
    expect(result.ok).toBe(true);
    expect(result.days).toHaveLength(60);
    expect(result.days.every((d) => d.missing === 0)).toBe(true);
  });

  it('exits 5 and names the object when a file was changed', async () => {
    const bad = join(dir, 'tampered');
    await cp(dest, bad, { recursive: true });
    const { byDt } = await archivedIds(createFileObjectStore(bad));
    const dt = [...byDt.keys()][0] as string;
    const { readdir } = await import('node:fs/promises');
    const name = (await readdir(join(bad, 'history', `dt=${dt}`)))[0] as string;
    await writeFile(join(bad, 'history', `dt=${dt}`, name), 'not parquet any more');
    const r = await runCli(['verify', '--now', NOW, '--dest', `file://${bad}`], { LOG_LEVEL: 'error' });
    expect(r.code).toBe(5);
    expect(r.stdout).toContain(`history/dt=${dt}/${name}`);
    expect(r.stdout).toContain('verify FAILED');
  });
});

describe('tunnel-archiver recover', () => {
  it('after the local state folder is deleted, rebuilds it, and the next run archives nothing twice', async () => {
    const copy = join(dir, 'lost-state');
    await cp(dest, copy, { recursive: true });
    await rm(join(copy, '.state'), { recursive: true, force: true });
    const r = await runCli(['recover', ...archiveArgs(copy)], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/rebuilt \d+ partition\(s\), \d+ file\(s\), \d+ row\(s\)/);
    const again = await runCli(['recover', ...archiveArgs(copy)], env);
    expect(again.stdout).toContain('nothing rebuilt');

    // A copy carries no private key: its run is pointed at the original's keys folder.
    const run = await runCli(['run', ...args(copy)], { ...env, ARCHIVE_KEYS_DIR: cliKeysDir(dest) });
    expect(run.code, run.stderr).toBe(0);
    const archive = await archivedIds(createFileObjectStore(copy));
    expect(archive.total).toBe(archive.distinct);
    expect(archive.total).toBe((await archivedIds(createFileObjectStore(dest))).total);
  });
});
