import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addDays, toDay } from '../../lib/clock/day.ts';
import { runArchive } from '../../lib/engine/runArchive.ts';
import { recordId } from '../../lib/records/recordId.ts';
import { historyRecordSchema } from '../../lib/records/schemas.ts';
import {
  archivedIds,
  duckdb,
  TEST_OPTIONS,
  TEST_TOKEN_KEY,
  windowDays,
  worldPerTest,
} from '../support/engineKit.ts';

const START = '2026-10-01T06:00:00.000Z';
const worlds = worldPerTest();

describe('runArchive against an adversarial emulator over HTTP', () => {
  it('stale whole-page totals, poison records and a 59-day server: exact archive, poison quarantined, edge day a gap, run green', async () => {
    const world = await worlds.open({
      start: START,
      store: 'file',
      emulator: { staleTotals: 'floor-pages', poisonRecords: { count: 2 }, windowDays: 59 },
    });
    const w = world;
    const today = toDay(w.clock.now());
    const oldest = addDays(today, -59);
    const summary = await runArchive(w.deps(), TEST_OPTIONS);
    expect(summary.failedDays).toEqual([]);
    expect(summary.gaps).toEqual([oldest]);
    expect(summary.learnedWindowDays).toBe(59);
    const days = windowDays(today).filter((d) => d !== oldest);
    const expected = new Set<string>();
    let invalid = 0;
    for (const d of days) {
      for (const r of w.emulator.truth(d)) expected.add(recordId(r, TEST_TOKEN_KEY));
      for (const p of w.emulator.poison(d)) {
        if (p.valid) expected.add(recordId(historyRecordSchema.parse(p.item), TEST_TOKEN_KEY));
        else invalid++;
      }
    }
    const archive = await archivedIds(w.objects);
    expect(archive.total).toBe(archive.distinct);
    expect(new Set([...archive.byDt.values()].flat())).toEqual(expected);
    const quarantined: string[] = [];
    for await (const o of w.objects.list('quarantine/')) quarantined.push(o.key);
    expect(quarantined.length).toBe(invalid);
    expect(summary.quarantined).toBe(invalid);
    // Under the default hash policy, no raw token reaches the archive: not the Parquet (extra_json included,
    // where the poison quotes tokens inside other values too), not the quarantine.
    const tokens = new Set<string>();
    for (const d of days) {
      for (const r of w.emulator.truth(d))
        for (const t of [r.token_value, r.virtual_token_value]) if (t) tokens.add(t);
      for (const p of w.emulator.poison(d))
        for (const t of JSON.stringify(p.item).match(/"(?:token_value|auth_token)":"([^"]+)"/g) ?? [])
          tokens.add(t.split(':"')[1]?.slice(0, -1) ?? '');
    }
    tokens.delete('');
    expect(tokens.size).toBeGreaterThan(10);
    const glob = join(w.dir, 'archive', 'history', '*', '*.parquet');
    const rows = await duckdb(
      `SELECT coalesce(token_value, '') || coalesce(extra_json, '') AS text FROM read_parquet('${glob}')`,
    );
    const archiveText = rows.map((r) => String(r.text)).join('\n');
    let quarantineText = '';
    for (const q of quarantined) quarantineText += new TextDecoder().decode(await w.objects.get(q));
    for (const t of tokens) {
      expect(archiveText.includes(t), t).toBe(false);
      expect(quarantineText.includes(t), t).toBe(false);
    }
  }, 120_000);
});
