import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../devkit/runCli.ts';
import { describeFullVerify, describeVerified } from '../../lib/integrity/verify/describeVerified.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

const DOC = readFileSync(new URL('../../docs/integrity.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
const NOW = '2026-11-20T12:00:00Z';
const tmp = tempDirPer('ta-integrity-status-');

describe('docs/integrity.md on what status shows', () => {
  it('status prints the weekly verify and the last full verify job on the lines the doc names', async () => {
    expect(DOC).toContain('shown by `status` ("weekly verify: …")');
    expect(DOC).toContain('`status` and the HTML report show it ("last full verify job: …")');
    const dest = join(tmp.dir, 'archive');
    const env = { TMPDIR: tmp.dir };
    const start = await runCli(
      ['start', '--dest', dest, '--quiet', '--days', '2026-11-19', '--now', NOW],
      env,
    );
    expect(start.code, start.stderr).toBe(0);
    const status = await runCli(['status', '--dest', dest, '--now', NOW], env);
    expect(status.code, status.stderr).toBe(0);
    // No weekly verify has run on a fresh archive: the line says so, as describeVerified words it.
    const lines = status.stdout.split('\n').filter((l) => l.startsWith('weekly verify: '));
    expect(lines).toEqual([`weekly verify: ${describeVerified(undefined)}`]);
    expect(describeVerified(undefined)).toMatch(/^never/);
    // Nor a full verify job: the line says how to start one.
    const full = status.stdout.split('\n').filter((l) => l.startsWith('last full verify job: '));
    expect(full).toEqual([`last full verify job: ${describeFullVerify(undefined)}`]);
    expect(describeFullVerify(undefined)).toContain('FullVerifyCommand');
  });
});
