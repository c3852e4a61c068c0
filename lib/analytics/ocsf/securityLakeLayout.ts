import type { Day } from '../../foundation/index.ts';
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
 * The key of the events one archive hour (digests from `firstSeq`, written in `archivedHour`) adds to
 * the event day `eventDay`, in the lake's layout:
 * `region=<r>/accountId=<a>/eventDay=YYYYMMDD/<class>-<archived YYYYMMDDHH>-<firstSeq>.parquet`. The name
 * is a function of the archive hour, so a retry or a second run writes the same key (and write-once keeps
 * the first); events that reach the archive late land in their own day under a later archive hour.
 */
export function lakeKey(
  source: LakeSource,
  region: string,
  accountId: string,
  eventDay: Day,
  archived: { hour: Date; firstSeq: number },
): string {
  const day = eventDay.replaceAll('-', '');
  const prefix = source.location.prefix.replace(/^\/+/, '').replace(/\/*$/, '/');
  const seq = String(archived.firstSeq).padStart(10, '0');
  return `${prefix}region=${region}/accountId=${accountId}/eventDay=${day}/${source.cls}-${compact(archived.hour)}-${seq}.parquet`;
}
