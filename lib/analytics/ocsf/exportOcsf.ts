import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObjectStore } from '../../archive/index.ts';
import { ArchiverError, addDays, type Day } from '../../foundation/index.ts';
import { copyArchiveDays } from './copyArchiveDays.ts';
import type { OcsfRule } from './detectionFindingMapping.ts';
import { type OcsfClass, openOcsfArchive } from './ocsfArchive.ts';
import { OCSF_1_8, type OcsfProfile } from './ocsfProfile.ts';
import { stripNulls } from './stripNulls.ts';

export const OCSF_FORMATS = ['parquet', 'jsonl'] as const;
export type OcsfFormat = (typeof OCSF_FORMATS)[number];

/** The archive to read: a local folder, or a store (S3) whose partitions are copied to a temp folder. */
export type OcsfSource = { dir: string } | { objects: ObjectStore };

export interface ExportOcsfOptions {
  cls: OcsfClass;
  /** Events whose time falls on these UTC days, both included. */
  since: Day;
  until: Day;
  format: OcsfFormat;
  outDir: string;
  rules: readonly OcsfRule[];
  /** Default OCSF 1.8.0 (sessions as Tunnel Activity 4014). */
  profile?: OcsfProfile;
}

export interface ExportOcsfResult {
  events: number;
  file: string;
}

/** The file an export writes: `<out>/ocsf-<class>-<since>-<until>.<format>`. */
export const exportFileName = (o: Pick<ExportOcsfOptions, 'cls' | 'since' | 'until' | 'format'>) =>
  `ocsf-${o.cls}-${o.since}-${o.until}.${o.format}`;

/** The instants `[since 00:00Z, until + 1 day 00:00Z)` in epoch ms. */
export const dayWindow = (since: Day, until: Day) => ({
  fromMs: Date.parse(`${since}T00:00:00Z`),
  toMs: Date.parse(`${addDays(until, 1)}T00:00:00Z`),
});

/**
 * `tunnel-archiver export --ocsf`: one class of the archive as OCSF events (the views' mapping, run in
 * DuckDB), sorted by time, as JSON Lines (nulls left out) or Parquet. Reads the archive only; the
 * file is made in a temp folder and copied into `outDir` at the end, so a failure leaves nothing there.
 */
export async function exportOcsf(source: OcsfSource, o: ExportOcsfOptions): Promise<ExportOcsfResult> {
  if (o.since > o.until)
    throw new ArchiverError('CONFIG_INVALID', `--since ${o.since} is after --until ${o.until}`);
  const outStat = await stat(o.outDir).catch(() => undefined);
  if (outStat !== undefined && !outStat.isDirectory())
    throw new ArchiverError('CONFIG_INVALID', `--out ${o.outDir} exists and is not a folder`);
  const work = await mkdtemp(join(tmpdir(), 'tunnel-archiver-ocsf-'));
  try {
    let dir: string;
    if ('dir' in source) {
      const s = await stat(join(source.dir, 'history')).catch(() => undefined);
      if (s === undefined)
        throw new ArchiverError('CONFIG_INVALID', `no archive at ${source.dir} (no history/ folder)`);
      dir = source.dir;
    } else {
      dir = join(work, 'archive');
      await copyArchiveDays(source.objects, dir, { untilDay: o.until });
    }
    const archive = await openOcsfArchive(dir, { untilDay: o.until });
    const name = exportFileName(o);
    const staged = join(work, name);
    let events: number;
    try {
      const window = dayWindow(o.since, o.until);
      const profile = o.profile ?? OCSF_1_8;
      if (o.format === 'parquet') {
        events = await archive.writeParquet(o.cls, profile, o.rules, window, staged);
      } else {
        const rows = await archive.events(o.cls, profile, o.rules, window);
        events = rows.length;
        await writeFile(staged, rows.map((r) => `${JSON.stringify(stripNulls(JSON.parse(r)))}\n`).join(''));
      }
    } finally {
      archive.close();
    }
    await mkdir(o.outDir, { recursive: true });
    const file = join(o.outDir, name);
    await copyFile(staged, file);
    return { events, file };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
