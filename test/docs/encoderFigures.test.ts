import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const results = JSON.parse(read('bench/RESULTS.json')) as {
  results: { name: string; archiverSeconds: number; peakRssMiB: number; maxRssMiB?: number }[];
};
const byName = (name: string) => results.results.find((r) => r.name === name);

describe('the PARQUET_ENCODER speed-up the configuration states is the one bench/RESULTS.json holds', () => {
  const description = SETTINGS.find((s) => s.env === 'PARQUET_ENCODER')?.description ?? '';
  const stated = /\((\d+(?:\.\d+)?)–(\d+(?:\.\d+)?)× faster on the bench’s million-record runs/.exec(
    description,
  );

  it('states a range, and the default is the worker', () => {
    expect(stated, description).not.toBeNull();
    expect(SETTINGS.find((s) => s.env === 'PARQUET_ENCODER')?.default).toBe('worker');
  });

  it('each million-record case, inline time over worker time, rounds into the stated range', () => {
    const [low, high] = [Number(stated?.[1]), Number(stated?.[2])];
    for (const name of ['backfill-1M', 'day-1M']) {
      const worker = byName(name);
      const inline = byName(`${name}-inline`);
      expect(worker && inline, `${name} and ${name}-inline in RESULTS.json`).toBeTruthy();
      const speedup = Math.round(((inline?.archiverSeconds ?? 0) / (worker?.archiverSeconds ?? 1)) * 10) / 10;
      expect(speedup, name).toBeGreaterThanOrEqual(low);
      expect(speedup, name).toBeLessThanOrEqual(high);
    }
  });

  it('the default (worker) keeps the million-record peak RSS under its target', () => {
    for (const name of ['backfill-1M', 'day-1M']) {
      const r = byName(name);
      expect(r?.maxRssMiB, name).toBeDefined();
      expect(r?.peakRssMiB, name).toBeLessThanOrEqual(r?.maxRssMiB ?? 0);
    }
  });
});
