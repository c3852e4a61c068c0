import { median } from './median.ts';
import type { ScriptResult } from './scriptChild.ts';

/** The script's figures in a case of bench/run.ts: the median of its runs, and the archiver against it. */
export interface ScriptFigures {
  /** Median of the runs by total time; its two halves are that run's. */
  seconds: number;
  fetchSeconds: number;
  duckdbSeconds: number;
  /** Median of the runs' CPU seconds in the DuckDB half (older results have none). */
  duckdbCpuSeconds?: number;
  parquetBytes: number;
  peakRssMiB: number;
  /** Archiver seconds ÷ script seconds, both medians of the same run of the bench. */
  ratio: number;
  maxRatio?: number;
  /** Script with ids: the fewest rows whose ids a run checked equal to the archiver's. */
  idsChecked?: number;
}

const round = (n: number): number => Math.round(n * 100) / 100;

/** The median script run (as the archiver's time is its median run) and the archiver's ratio to it. */
export function scriptFigures(
  runs: readonly ScriptResult[],
  archiverSeconds: number,
  maxRatio: number | undefined,
): ScriptFigures {
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  const mid = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!mid) throw new Error('the script case ran no script');
  return {
    seconds: round(mid.seconds),
    fetchSeconds: round(mid.fetchSeconds),
    duckdbSeconds: round(mid.duckdbSeconds),
    ...(runs.every((r) => r.duckdbCpuSeconds !== undefined)
      ? { duckdbCpuSeconds: round(median(runs.map((r) => r.duckdbCpuSeconds as number))) }
      : {}),
    parquetBytes: mid.parquetBytes,
    peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
    ratio: round(archiverSeconds / mid.seconds),
    ...(maxRatio === undefined ? {} : { maxRatio }),
    ...(runs.every((r) => r.idsChecked !== undefined)
      ? { idsChecked: Math.min(...runs.map((r) => r.idsChecked as number)) }
      : {}),
  };
}

/** CPU seconds of a case: the least the bound's process took, the archiver's median. */
export interface CpuFigures {
  boundSeconds: number;
  archiverSeconds: number;
}

/** `{ cpu }` of a case, or nothing when its children reported no CPU time. */
export function cpuFigures(
  bounds: readonly { cpuSeconds?: number | undefined }[],
  archivers: readonly { cpuSeconds?: number | undefined }[],
): { cpu?: CpuFigures } {
  const b = bounds.map((r) => r.cpuSeconds).filter((x): x is number => x !== undefined);
  const a = archivers
    .map((r) => r.cpuSeconds)
    .filter((x): x is number => x !== undefined)
    .sort((x, y) => x - y);
  if (b.length === 0 || a.length === 0) return {};
  return {
    cpu: {
      boundSeconds: round(Math.min(...b)),
      archiverSeconds: round(a[Math.floor((a.length - 1) / 2)] as number),
    },
  };
}
