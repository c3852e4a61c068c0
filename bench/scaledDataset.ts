import { type DatasetOptions, DEFAULT_DATASET } from '../lib/archive/emulator/dataset.ts';

/**
 * The default dataset with every day's volume multiplied by `scale` (60 days ≈ 17,600 × scale records).
 * A stand-in for the emulator's `scale` option: the bench calls only this function, so switching to the
 * real option is a one-line change here.
 */
export function scaledDataset(scale: number): Partial<DatasetOptions> {
  return {
    normalMin: Math.max(1, Math.round(DEFAULT_DATASET.normalMin * scale)),
    normalMax: Math.max(1, Math.round(DEFAULT_DATASET.normalMax * scale)),
    heavyMin: Math.max(1, Math.round(DEFAULT_DATASET.heavyMin * scale)),
    heavyMax: Math.max(1, Math.round(DEFAULT_DATASET.heavyMax * scale)),
  };
}

/** A dataset in which every day has exactly `records` short sessions, all visible at once (no late rows). */
export function flatDayDataset(records: number): Partial<DatasetOptions> {
  return {
    heavyEveryDays: 1,
    heavyMin: records,
    heavyMax: records,
    minSessionMs: 60_000,
    maxSessionMs: 120_000,
    lateRate: 0,
  };
}
