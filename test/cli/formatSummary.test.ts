import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import { EXIT_CODES, EXIT_PARTIAL, exitCodeFor } from '../../lib/cli/exitCodes.ts';
import { failedDaysOf, formatSummary } from '../../lib/cli/formatSummary.ts';
import { exitCodeOfRun } from '../../lib/cli/runCommand.ts';
import { runSummary } from '../functions/archive-history/runSummaryFixture.ts';

const failed = {
  day: '2026-09-01',
  code: 'UPSTREAM_UNAVAILABLE',
  message: 'GET … failed after 10 attempt(s)',
  attempts: 2,
};
const withFailed = (days: unknown[]): RunSummary => ({ ...runSummary(), failedDays: days }) as RunSummary;

describe('exitCodeOfRun', () => {
  it.each([
    ['no failed days', runSummary(), 0],
    ['an empty failedDays', withFailed([]), 0],
    ['one failed day', withFailed([failed]), EXIT_PARTIAL],
  ])('%s exits %i', (_name, summary, code) => {
    expect(exitCodeOfRun(summary)).toBe(code);
  });

  it('7 is the documented partial code, distinct from every error code', () => {
    expect(EXIT_PARTIAL).toBe(7);
    expect(EXIT_CODES.find((e) => e.code === 7)?.meaning).toMatch(/^partial/);
    for (const code of ['CONFIG_INVALID', 'AUTH_REJECTED', 'INTERNAL', 'LEASE_HELD'] as const)
      expect(exitCodeFor(code)).not.toBe(7);
  });
});

describe('formatSummary', () => {
  it('lists each failed day with its code, message and streak', () => {
    const text = formatSummary(withFailed([failed]));
    expect(text).toMatch(/^run run-1 finished with failed days in 60\.0 s/);
    expect(text).toContain(
      '    2026-09-01 [UPSTREAM_UNAVAILABLE] GET … failed after 10 attempt(s) (failed on 2 run(s) in a row)',
    );
    expect(failedDaysOf(withFailed([failed]))).toEqual([failed]);
  });

  it('lists the days deferred to the next run when there are any', () => {
    const summary = { ...runSummary(), deferredDays: ['2026-09-02', '2026-09-03'] } as RunSummary;
    expect(formatSummary(summary)).toContain('  deferred days:  2026-09-02, 2026-09-03\n');
    expect(formatSummary(runSummary())).not.toContain('deferred days');
  });

  it('reports blocked partitions, the live-session snapshot, the digest and a rebuilt state', () => {
    const text = formatSummary({
      ...runSummary(),
      brokenPartitions: ['history/dt=2026-09-01'],
      active: { listed: 12, rows: 3, longSessions: 1 },
      digest: {
        key: 'digests/0000000007.json',
        files: 4,
        seq: 7,
        sha256: 'a'.repeat(64),
        createdAt: '2026-11-20T06:00:00.000Z',
      },
      rebuilt: { partitions: 2, files: 5, rows: 100 },
      foreignFiles: ['history/dt=2026-09-02/x.parquet'],
    });
    expect(text).toContain('  blocked:        history/dt=2026-09-01 (see tunnel-archiver repair --help)\n');
    expect(text).toContain(
      '  live sessions:  12 open, 3 change row(s), 1 open longer than history can show\n',
    );
    expect(text).toContain('  digest:         digests/0000000007.json (4 file(s))\n');
    expect(text).toContain(
      `  chain head:     7:${'a'.repeat(64)} (an auditor checks it with verify --expect-head)\n`,
    );
    expect(text).toContain('  state rebuilt:  5 file(s) from the archive\n');
    expect(text).toContain(
      '  foreign files:  history/dt=2026-09-02/x.parquet (never committed by the archiver',
    );
    expect(formatSummary(runSummary())).not.toContain('foreign files');
  });

  it('says none when nothing failed, with no trailing spaces', () => {
    const text = formatSummary(runSummary());
    expect(text).toContain('  failed days:    none\n');
    expect(text).not.toMatch(/ $/m);
  });
});
