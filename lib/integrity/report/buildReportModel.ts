import { createHash, createPublicKey } from 'node:crypto';
import {
  archiveKeys,
  type DigestChain,
  longSessions,
  type ObjectStore,
  readDigestChain,
  rebuildActiveFromArchive,
  windowStartOf,
} from '../../archive/index.ts';
import { type Clock, type Day, dayRange, daysBetween, toDay } from '../../foundation/index.ts';
import { type ArchiveStatus, archiveStatus, type StatusInputs } from '../status/archiveStatus.ts';
import { readLastFullVerify } from '../verify/mergeVerifyJob.ts';
import { readStoredVerify } from '../verify/storeVerify.ts';
import type { VerifyResult } from '../verify/verifyTypes.ts';
import { dayStatus } from './dayStatus.ts';
import { readLiveSeries, readSessionsByMode } from './readActivity.ts';
import { readFindings } from './readFindings.ts';
import type { CalendarDay, ReportModel } from './reportModel.ts';

export interface ReportInputs {
  objects: ObjectStore;
  clock: Clock;
  windowDays: number;
  /** The state's reads (`readStatusInputs`); without them the calendar comes from the digests alone. */
  state?: StatusInputs;
  /** A verify result to show (`verifyArchive`'s, as `verify --json` prints it); else the stored one, if any. */
  verify?: VerifyResult;
}

interface DigestDay {
  files: Set<string>;
  rows: number;
  scans: { age: number; complete: boolean }[];
}

/** Files and scans per day, from every digest (a file listed twice counts once). */
function digestDays(chain: DigestChain): { days: Map<Day, DigestDay>; quarantined: number } {
  const days = new Map<Day, DigestDay>();
  const of = (day: Day) => {
    const d = days.get(day) ?? { files: new Set<string>(), rows: 0, scans: [] };
    days.set(day, d);
    return d;
  };
  const quarantine = new Set<string>();
  for (const e of chain.entries) {
    for (const f of e.digest?.files ?? []) {
      if (f.dataset === 'quarantine') quarantine.add(f.key);
      if (f.dataset !== 'history' || f.dt === null) continue;
      const d = of(f.dt);
      if (d.files.has(f.key)) continue;
      d.files.add(f.key);
      d.rows += f.rows ?? 0;
    }
    for (const s of e.digest?.scans ?? [])
      of(s.day).scans.push({ age: daysBetween(s.day, toDay(new Date(s.scannedAt))), complete: s.complete });
  }
  return { days, quarantined: quarantine.size };
}

/** SHA-256 of the public key's DER (SPKI) bytes: `openssl pkey -pubin -outform DER | sha256sum`. */
export function publicKeyFingerprint(pem: string): string {
  const der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex');
}

async function countStaged(objects: ObjectStore): Promise<number> {
  let n = 0;
  for await (const o of objects.list(archiveKeys.stagingPrefix)) if (o.key.endsWith('.parquet')) n++;
  return n;
}

/** One cell per day, from the oldest day anything knows of (and at least the window) to today. */
function calendarOf(
  status: ArchiveStatus | undefined,
  inputs: ReportInputs,
  today: Day,
  digests: Map<Day, DigestDay>,
): CalendarDay[] {
  const states = new Map((inputs.state?.days ?? []).map((d) => [d.day, d] as const));
  const broken = new Set(
    (inputs.verify?.failures ?? [])
      .filter((f) => f.kind === 'missing-file' && f.object?.startsWith(archiveKeys.historyPrefix))
      .map((f) => /dt=(\d{4}-\d{2}-\d{2})\//.exec(f.object ?? '')?.[1]),
  );
  const pending = new Map((inputs.verify?.days ?? []).map((d) => [d.day, d.pending] as const));
  const known = [...states.keys(), ...digests.keys()].filter((d) => d <= today).sort();
  const windowStart = windowStartOf(today, inputs.windowDays);
  const from = known[0] !== undefined && known[0] < windowStart ? known[0] : windowStart;
  const statusRows = new Map((status?.days ?? []).map((r) => [r.day, r] as const));
  return dayRange(from, today).map((day) => {
    const state = states.get(day);
    const dd = digests.get(day);
    const { status: s, detail } = dayStatus({
      day,
      today,
      windowDays: inputs.windowDays,
      ...(inputs.state ? { state: state ?? blankDay(day) } : {}),
      scans: dd?.scans ?? [],
      brokenByVerify: broken.has(day),
      pending: pending.get(day) ?? 0,
    });
    const completeAges = [...new Set((dd?.scans ?? []).filter((x) => x.complete).map((x) => x.age))];
    return {
      day,
      status: s,
      scannedAges: state?.scannedAges ?? completeAges.sort((a, b) => a - b),
      records: statusRows.get(day)?.records ?? state?.distinctSeen ?? dd?.rows ?? 0,
      files: dd?.files.size ?? 0,
      rows: dd?.rows ?? 0,
      scans: dd?.scans.length ?? 0,
      ...(detail === undefined ? {} : { detail }),
    };
  });
}

/** A day the state has no item for: never scanned. */
const blankDay = (day: Day) => ({ day, scannedAges: [], sealed: false, version: 0 });

/**
 * Everything the report shows, read from the archive (digests, `history/`, `active/`, `findings/`) and,
 * when given, the state. The figures `status --json` and `verify --json` print are taken as they are
 * (`archiveStatus`, the `VerifyResult`), never computed a second time.
 */
export async function buildReportModel(inputs: ReportInputs): Promise<ReportModel> {
  const now = inputs.clock.now();
  const today = toDay(now);
  const { objects } = inputs;
  const chain = await readDigestChain(objects);
  const status = inputs.state
    ? archiveStatus(inputs.state, { today, now, windowDays: inputs.windowDays })
    : undefined;
  const { days: digests, quarantined } = digestDays(chain);
  const [byMode, live, unpublished, findings, fullVerifyJob] = await Promise.all([
    readSessionsByMode(objects),
    readLiveSeries(objects),
    countStaged(objects),
    readFindings(objects),
    readLastFullVerify(objects),
  ]);
  const newest = chain.entries.at(-1);
  const lastDigestAt = newest?.digest?.createdAt ?? null;
  const stored = inputs.verify ? undefined : await readStoredVerify(objects);
  const verify = inputs.verify ?? stored;
  return {
    generatedAt: now.toISOString(),
    archive: objects.url,
    today,
    windowDays: inputs.windowDays,
    ...(status ? { status } : {}),
    ...(verify ? { verify, verifySource: stored ? ('stored' as const) : ('fresh' as const) } : {}),
    ...(fullVerifyJob ? { fullVerifyJob } : {}),
    calendar: calendarOf(status, { ...inputs, ...(verify ? { verify } : {}) }, today, digests),
    activity: {
      byMode,
      live,
      // Without the state, the sessions open at the last snapshot come from active/ itself.
      longSessions: status
        ? status.live.longSessions
        : longSessions((await rebuildActiveFromArchive(objects)) ?? { sessions: {} }, now, inputs.windowDays),
    },
    health: {
      lastRunAt: status?.meta?.lastRunAt ?? lastDigestAt,
      lastDigestAt,
      quarantined,
      unpublished,
      foreign: verify ? verify.failures.filter((f) => f.kind === 'unlisted').length : null,
      learnedWindowDays: status?.meta?.learnedWindowDays ?? null,
    },
    integrity: {
      head: newest ? { seq: newest.seq, sha256: newest.sha256, at: lastDigestAt } : null,
      publicKeyFingerprint: chain.publicKey ? publicKeyFingerprint(chain.publicKey.pem) : null,
    },
    ...(findings ? { findings } : {}),
  };
}
