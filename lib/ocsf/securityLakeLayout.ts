import type { OcsfClass } from './ocsfArchive.ts';

/** Where a custom source's objects go: the location Security Lake gives it when it is registered. */
export interface LakeLocation {
  bucket: string;
  /** `ext/<source name>/` (or however the lake names it): the custom source's own prefix. */
  prefix: string;
}

/** One custom source: one OCSF class, its lake location and the provider role Security Lake made for it. */
export interface LakeSource {
  cls: OcsfClass;
  location: LakeLocation;
  roleArn: string;
  externalId: string;
}

const HOUR_MS = 3_600_000;

/** The start of the UTC hour `t` falls in. */
export const hourOf = (t: Date): Date => new Date(Math.floor(t.getTime() / HOUR_MS) * HOUR_MS);

const compact = (t: Date) => t.toISOString().slice(0, 13).replace(/[-T]/g, '');

/**
 * The key of one hour's events under a custom source's prefix, in the lake's layout:
 * `region=<r>/accountId=<a>/eventDay=YYYYMMDD/<class>-YYYYMMDDHH.parquet`. One name per hour, so a
 * retry or a second run writes the same key (and write-once keeps the first).
 */
export function lakeKey(source: LakeSource, region: string, accountId: string, hour: Date): string {
  const day = compact(hour).slice(0, 8);
  const prefix = source.location.prefix.replace(/^\/+/, '').replace(/\/*$/, '/');
  return `${prefix}region=${region}/accountId=${accountId}/eventDay=${day}/${source.cls}-${compact(hour)}.parquet`;
}
