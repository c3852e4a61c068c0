import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveRow } from '../../lib/archive/records/archiveRow.ts';
import { createFileObjectStore } from '../../lib/archive/store/fileObjectStore.ts';
import { main } from '../../lib/cli/main.ts';
import { toDay } from '../../lib/foundation/clock/day.ts';
import { readFindings } from '../../lib/integrity/report/readFindings.ts';
import { captureIo, freshDir } from '../cli/cliKit.ts';
import { addHistoryFile, tunnelHistoryRow } from '../support/detectArchive.ts';

const HOUR = 3_600_000;
const T0 = new Date('2026-09-28T08:00:00Z');
const at = (h: number) => new Date(T0.getTime() + h * HOUR);

let dir: string;
/** What `detect --json` printed, per run. */
const runs: { rule_id: string; finding_id: string; revision: number; new: boolean }[][] = [];

const addHistory = (rows: ArchiveRow[]) => addHistoryFile(dir, toDay(rows[0]?.start_time ?? T0), rows);

async function detect(now: Date) {
  const { io, out, err } = captureIo({});
  const code = await main(
    [
      'detect',
      '--json',
      '--now',
      now.toISOString(),
      '--dest',
      dir,
      '--settings',
      path.join(dir, 'settings.json'),
    ],
    io,
  );
  if (code !== 0) throw new Error(`detect exited ${code}: ${err()}`);
  runs.push(JSON.parse(out()));
}

beforeAll(async () => {
  dir = await freshDir('findings-report');
  // Rules with a baseline stay quiet (warming up); the others see a UDP tunnel and a 30-hour one.
  await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ settings: { baseline_days: 30 } }));
  await addHistory([
    tunnelHistoryRow('udp-1', 'tok-udp', at(0), at(1), true),
    tunnelHistoryRow('long-1', 'tok-long', at(0), at(30)),
  ]);
  await detect(at(32));
  // Later: the UDP token again within its quiet gap (an update of the same incident, a second row in findings/).
  await addHistory([tunnelHistoryRow('udp-2', 'tok-udp', at(33), at(34), true)]);
  await detect(at(36));
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readFindings over the findings detect writes', () => {
  it('names each rule and counts each incident once, whatever its revisions', async () => {
    const [first, second] = runs;
    const fresh = (first ?? []).filter((f) => f.new);
    expect(fresh.map((f) => f.rule_id).sort()).toEqual(['long_tunnel', 'udp_tunnel']);
    // The second run updated the UDP incident (revision 1): findings/ holds two rows of it.
    expect(second?.find((f) => f.rule_id === 'udp_tunnel')).toMatchObject({ revision: 1, new: false });

    const summary = await readFindings(createFileObjectStore(dir));
    expect(summary?.total).toBe(2);
    expect(summary?.byRule).toEqual([
      { rule: 'long_tunnel', severity: expect.any(String), count: 1 },
      { rule: 'udp_tunnel', severity: expect.any(String), count: 1 },
    ]);
    expect(summary?.latest.map((l) => [l.rule, l.lastSeen])).toEqual([
      // The UDP rule's activity is when its tunnels start.
      ['udp_tunnel', at(33).toISOString()],
      ['long_tunnel', at(30).toISOString()],
    ]);
  });

  it('the report page shows them by rule name', async () => {
    const { io, err } = captureIo({});
    const code = await main(['report', '--now', at(36).toISOString(), '--dest', dir], io);
    expect(code, err()).toBe(0);
    const html = await readFile(path.join(dir, 'report.html'), 'utf8');
    const section = html.slice(html.indexOf('id="findings"'));
    expect(section).toContain('<td>udp_tunnel</td>');
    expect(section).toContain('<td>long_tunnel</td>');
    expect(section).not.toContain('<td></td>');
  });
});
