import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRunTmpDir } from '../../lib/foundation/process/makeRunTmpDir.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ta-tmproot-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A pid that certainly belongs to no process now: a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

async function leftover(name: string, owner?: string): Promise<void> {
  await mkdir(join(root, name));
  await writeFile(join(root, name, 'walk-2026-11-01.jsonl'), 'x');
  if (owner !== undefined) await writeFile(join(root, name, 'owner.pid'), owner);
}

describe('makeRunTmpDir', () => {
  it('makes a 0700 folder for the run and removes the folders of dead runs only', async () => {
    await leftover('tunnel-archiver-dead', `${deadPid()} x`);
    await leftover('tunnel-archiver-reused-pid', `${process.pid} an-earlier-incarnation`);
    await leftover('tunnel-archiver-live', `${process.ppid} other`);
    await leftover('tunnel-archiver-unowned');
    await leftover('someone-else', `${deadPid()} x`);
    const first = await makeRunTmpDir(root, 'run1');
    expect(first.removed).toBe(2);
    expect((await stat(first.dir)).mode & 0o777).toBe(0o700);
    // A second run of this same process keeps the first one's folder (it may still be running).
    const second = await makeRunTmpDir(root, 'run2');
    expect(second.removed).toBe(0);
    expect((await readdir(root)).sort()).toEqual([
      'someone-else',
      'tunnel-archiver-live',
      'tunnel-archiver-run1',
      'tunnel-archiver-run2',
      'tunnel-archiver-unowned',
    ]);
  });

  it("takes the injected liveness's word over the pid: dead is removed, alive is kept", async () => {
    // A live pid whose incarnation the kernel calls dead (a reused pid), and a dead pid it calls alive.
    await leftover('tunnel-archiver-judged-dead', `${process.ppid} judged-dead`);
    await leftover('tunnel-archiver-judged-alive', `${deadPid()} judged-alive`);
    const asked: string[] = [];
    const made = await makeRunTmpDir(root, 'run3', async (incarnation) => {
      asked.push(incarnation);
      return incarnation === 'judged-dead' ? 'dead' : 'alive';
    });
    expect(made.removed).toBe(1);
    expect(asked.sort()).toEqual(['judged-alive', 'judged-dead']);
    expect((await readdir(root)).sort()).toEqual(['tunnel-archiver-judged-alive', 'tunnel-archiver-run3']);
  });
});
