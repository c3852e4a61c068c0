import { describe, expect, it } from 'vitest';
import type { ScriptResult } from '../../bench/scriptChild.ts';
import { scriptFigures } from '../../bench/scriptFigures.ts';

const run = (seconds: number, idsChecked?: number): ScriptResult => ({
  pages: 1,
  records: 10,
  fetchSeconds: seconds / 2,
  duckdbSeconds: seconds / 2,
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
  });

  it('reports the fewest ids checked, and none when one run checked none', () => {
    expect(scriptFigures([run(3, 2000), run(1, 1999), run(2, 2000)], 5, undefined).idsChecked).toBe(1999);
    expect(scriptFigures([run(3, 2000), run(1)], 5, undefined)).not.toHaveProperty('idsChecked');
  });
});
