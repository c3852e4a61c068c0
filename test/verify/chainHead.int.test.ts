import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../devkit/runCli.ts';
import { EMULATOR_PAID_KEY, type EmulatorHandle, startEmulator } from '../../devkit/startEmulator.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import type { VerifyResult } from '../../lib/integrity/verify/verifyTypes.ts';
import { SMALL_DATASET } from '../support/engineKit.ts';

const NOW = '2026-10-01T06:00:00.000Z';
let emulator: EmulatorHandle;
let dir: string;
let dest: string;
let head: string;
const env = { TUNNEL_API_KEY: EMULATOR_PAID_KEY, LOG_LEVEL: 'error' };
const verify = (d: string, ...extra: string[]) =>
  runCli(['verify', '--now', NOW, '--json', '--dest', `file://${d}`, ...extra], { LOG_LEVEL: 'error' });

/** A copy of the archive as an auditor gets it: no state, no keys. */
async function auditorCopy(name: string): Promise<string> {
  const copy = join(dir, name);
  await cp(dest, copy, {
    recursive: true,
    filter: (src) => !src.includes('.state') && !src.includes('.keys'),
  });
  return copy;
}

beforeAll(async () => {
  emulator = await startEmulator({ seed: 5, clock: new ManualClock(NOW), dataset: SMALL_DATASET });
  dir = await mkdtemp(join(tmpdir(), 'ta-head-'));
  dest = join(dir, 'archive');
  let out = '';
  for (let i = 0; i < 3; i++) {
    const r = await runCli(
      ['run', '--now', NOW, '--base-url', emulator.url, '--dest', `file://${dest}`],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    out = r.stdout;
  }
  head = /chain head: +(\d+:[0-9a-f]{64})/.exec(out)?.[1] ?? '';
});
afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a truncated chain is noticed', () => {
  it('every run records the head (seq:SHA-256) in the state and prints it; verify agrees and compares with it', async () => {
    expect(head).toMatch(/^3:/);
    const r = await verify(dest);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as VerifyResult;
    expect(`${result.head?.seq}:${result.head?.sha256}`).toBe(head);
    expect(result.expectedHeads).toEqual([{ seq: 3, sha256: head.slice(2), source: 'the state' }]);
  });

  it('the chain alone cannot tell that its newest digests were removed (the control)', async () => {
    const copy = await auditorCopy('cut-no-head');
    await rm(join(copy, 'digests/0000000003.json'));
    await rm(join(copy, 'digests/0000000002.json'));
    const r = await verify(copy);
    expect(r.code, r.stdout).toBe(0);
  });

  it('with --expect-head, an auditor without state sees truncated, naming the missing range', async () => {
    const copy = await auditorCopy('cut-expect');
    await rm(join(copy, 'digests/0000000003.json'));
    await rm(join(copy, 'digests/0000000002.json'));
    const r = await verify(copy, '--expect-head', head);
    expect(r.code).toBe(5);
    const result = JSON.parse(r.stdout) as VerifyResult;
    expect(result.failures).toEqual([
      expect.objectContaining({
        kind: 'truncated',
        object: 'digests/0000000002.json',
        message: expect.stringContaining('digests/0000000002.json to digests/0000000003.json removed'),
      }),
    ]);
  });

  it('with the state readable, verify reports truncated by itself', async () => {
    const copy = join(dir, 'cut-state');
    await cp(dest, copy, { recursive: true });
    await rm(join(copy, 'digests/0000000003.json'));
    const r = await verify(copy);
    expect(r.code, r.stdout + r.stderr).toBe(5);
    const result = JSON.parse(r.stdout) as VerifyResult;
    expect(result.failures.map((f) => [f.kind, f.object])).toEqual([
      ['truncated', 'digests/0000000003.json'],
    ]);
  });

  it('a head digest rewritten under the same position is a chain failure; a malformed head is a clear error', async () => {
    const copy = await auditorCopy('rewritten');
    // Rewritten with the same members and signature, only its whitespace changed: the signature (over
    // canonical JSON) still verifies and nothing links to the head, so only the recorded head shows it.
    const file = join(copy, 'digests/0000000003.json');
    const stored = await readFile(file, 'utf8');
    await writeFile(file, `${JSON.stringify(JSON.parse(stored))}\n`);
    const control = await verify(copy);
    expect(control.code, control.stdout).toBe(0);
    const r = await verify(copy, '--expect-head', head);
    expect(r.code).toBe(5);
    expect((JSON.parse(r.stdout) as VerifyResult).failures).toEqual([
      expect.objectContaining({
        kind: 'chain',
        object: 'digests/0000000003.json',
        message: expect.stringContaining('it was rewritten'),
      }),
    ]);
    const since = await verify(copy, '--since', '2026-10-01');
    expect(since.code, since.stdout + since.stderr).toBe(0);
    expect((JSON.parse(since.stdout) as VerifyResult).since).toBe('2026-10-01');
    const badDay = await verify(copy, '--since', 'last week');
    expect(badDay.code).toBe(2);
    expect(badDay.stderr).toContain("--since must be a day, YYYY-MM-DD, got 'last week'");
    const bad = await verify(copy, '--expect-head', '3:nothex');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--expect-head must be SEQ:SHA256');
  });
});
