import { describe, expect, it } from 'vitest';
import type { ScriptResult } from '../../bench/scriptChild.ts';
import { scriptFigures } from '../../bench/scriptFigures.ts';

const run = (seconds: number, idsChecked?: number, duckdbCpuSeconds = seconds * 1.5): ScriptResult => ({
  pages: 1,
  records: 10,
  fetchSeconds: seconds / 2,
  duckdbSeconds: seconds / 2,
  duckdbCpuSeconds,
  seconds,
  parquetBytes: 100,
  peakRssMiB: Math.round(seconds * 10),
  ...(idsChecked === undefined ? {} : { idsChecked }),
});

describe('scriptFigures', () => {
  it('takes the median run, the highest peak, and the archiver against that median', () => {
    const f = scriptFigures([run(3), run(1), run(2)], 5, 1.5);
    expect(f).toMatchObject({ seconds: 2, fetchSeconds: 1, peakRssMiB: 30, ratio: 2.5, maxRatio: 1.5 });
    expect(f).not.toHaveProperty('idsChecked');
    // DuckDB's CPU is its own median, not the median run's.
    expect(
      scriptFigures([run(3, undefined, 1), run(1, undefined, 9), run(2, undefined, 4)], 5, 1.5),
    ).toMatchObject({
      seconds: 2,
      duckdbCpuSeconds: 4,
    });
    const older = { ...run(2) } as Partial<ScriptResult>;
    delete older.duckdbCpuSeconds;
    expect(scriptFigures([run(1), older as ScriptResult], 5, 1.5)).not.toHaveProperty('duckdbCpuSeconds');
  });

  it('reports the fewest ids checked, and none when one run checked none', () => {
    expect(scriptFigures([run(3, 2000), run(1, 1999), run(2, 2000)], 5, undefined).idsChecked).toBe(1999);
    expect(scriptFigures([run(3, 2000), run(1)], 5, undefined)).not.toHaveProperty('idsChecked');
  });
});
