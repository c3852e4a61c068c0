import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isDeadLocalHolder } from '../../lib/archive/commit/isDeadLocalHolder.ts';
import { leaseOwner } from '../../lib/archive/commit/leaseOwner.ts';
import { DIR_LOCK, lockDir } from '../../lib/archive/state/dirLock.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { isKernelLockHeld, tryKernelLock } from '../../lib/foundation/process/kernelLock.ts';
import { PROCESS_INCARNATION } from '../../lib/foundation/process/processIncarnation.ts';
import { livenessRoot } from '../../lib/foundation/process/processLiveness.ts';

const CLASSIC_LEVEL = fileURLToPath(new URL('../../node_modules/classic-level/index.js', import.meta.url));

let dir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ta-klock-'));
});
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/**
 * A process holding the LevelDB lock in `lockPath`, started under a parent that never reaps it
 * (`sh` replaced by `sleep`): once SIGKILLed it stays a zombie, so its pid still exists. That is the
 * case a pid check gets wrong, and the one the kernel lock must get right.
 */
async function unreapedHolder(lockPath: string): Promise<{ pid: number; parent: ChildProcess }> {
  const script = `const { ClassicLevel } = require(${JSON.stringify(CLASSIC_LEVEL)}); new ClassicLevel(${JSON.stringify(lockPath)}).open().then(() => { console.log(process.pid); setInterval(() => {}, 1e6); });`;
  const parent = spawn('sh', ['-c', `${JSON.stringify(process.execPath)} -e '${script}' & exec sleep 600`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(parent);
  const pid = await new Promise<number>((resolve) =>
    parent.stdout?.once('data', (d) => resolve(Number(String(d).trim()))),
  );
  return { pid, parent };
}

const pidExists = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const zombie = async (pid: number): Promise<boolean> =>
  /^State:\s+Z/m.test(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''));

describe('the kernel lock', () => {
  it('is held while its process lives, and free the instant it is killed, though its pid still exists', async () => {
    const lockPath = path.join(dir, 'lock');
    const { pid } = await unreapedHolder(lockPath);
    expect(await isKernelLockHeld(lockPath)).toBe(true);
    expect((await tryKernelLock(lockPath)).held).toBe(true);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => zombie(pid), { timeout: 60_000 }).toBe(true);
    expect(pidExists(pid), 'the killed holder is unreaped: its pid still exists').toBe(true);
    // Free as soon as its last thread has exited (milliseconds after the leader shows as a zombie).
    await expect.poll(() => isKernelLockHeld(lockPath), { timeout: 60_000 }).toBe(false);
    const mine = await tryKernelLock(lockPath);
    expect(mine.held).toBe(false);
    // Held by this process now: asked again, it says so without reopening (which would drop the lock).
    expect(await tryKernelLock(lockPath)).toEqual({ held: true, byThisProcess: true });
    if (!mine.held) await mine.lock.release();
    expect(await isKernelLockHeld(lockPath)).toBe(false);
  });
});

describe('lockDir (the state folder)', () => {
  it('names the live holder, and is taken at once after the holder is killed', async () => {
    const { pid } = await unreapedHolder(path.join(dir, DIR_LOCK));
    await writeFile(
      path.join(dir, DIR_LOCK, 'holder.json'),
      JSON.stringify({
        pid,
        host: hostname(),
        since: '2026-11-24T00:00:00.000Z',
        argv: 'tunnel-archiver.js run',
      }),
    );
    const refused = await lockDir(dir).catch((e: unknown) => e);
    expect(ArchiverError.is(refused, 'LEASE_HELD')).toBe(true);
    expect((refused as Error).message).toContain(`pid ${pid} on ${hostname()}`);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => zombie(pid), { timeout: 60_000 }).toBe(true);
    const release = await lockDir(dir);
    // A second claim from this very process is refused too, and says so.
    const again = await lockDir(dir).catch((e: unknown) => e);
    expect((again as Error).message).toContain('this very process');
    await release();
  });

  it('keeps the cause when the folder cannot be locked: never reported as "another run"', async () => {
    await writeFile(path.join(dir, DIR_LOCK), 'not a folder');
    const error = await lockDir(dir).catch((e: unknown) => e);
    expect(ArchiverError.is(error, 'STORE_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/cannot lock the state folder .*EEXIST|ENOTDIR/);
    expect((error as Error).message).not.toMatch(/another/);
  });
});

describe('isDeadLocalHolder (the local lease)', () => {
  it('judges dead only a holder whose liveness lock the kernel no longer holds', async () => {
    const lease = (owner: string) => ({ owner, fence: 1, expiresAt: 0 });
    const incarnation = '00000000-0000-4000-8000-000000000001';
    const { pid } = await unreapedHolder(path.join(livenessRoot(), incarnation));
    const owner = `r1@${hostname()}:${pid}:${incarnation}`;
    expect(await isDeadLocalHolder(lease(owner))).toBe(false);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => zombie(pid), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => isDeadLocalHolder(lease(owner)), { timeout: 60_000 }).toBe(true);
    // Never dead: this very process, another host, no liveness lock, an owner of the old format.
    expect(await isDeadLocalHolder(lease(leaseOwner('mine')))).toBe(false);
    expect(leaseOwner('mine')).toContain(PROCESS_INCARNATION);
    expect(await isDeadLocalHolder(lease(`r1@another-host:${pid}:${incarnation}`))).toBe(false);
    expect(
      await isDeadLocalHolder(lease(`r1@${hostname()}:${pid}:00000000-0000-4000-8000-00000000dead`)),
    ).toBe(false);
    expect(await isDeadLocalHolder(lease(`r1@${hostname()}:${pid}`))).toBe(false);
    await rm(path.join(livenessRoot(), incarnation), { recursive: true, force: true });
  });
});
