import { randomUUID } from 'node:crypto';
import { ArchiverError, toDay } from '../../foundation/index.ts';
import { type Finding, findingIdOf } from './finding.ts';
import type { FindingJson, FindingLedger, IncidentSpan, LedgerEntry } from './findingLedger.ts';

/** Record ids a ledger entry and a message keep at most (the count and the rows' SQL cover the rest). */
export const RECORD_ID_SAMPLE = 200;
/** How long a delivery an evaluation began is its own before another may finish it. */
export const DELIVERY_LEASE_MS = 10 * 60_000;
const ATTEMPTS = 12;

export const findingToJson = (f: Finding): FindingJson => ({
  ...f,
  first_seen: f.first_seen.toISOString(),
  last_seen: f.last_seen.toISOString(),
  detected_at: f.detected_at.toISOString(),
  updated_at: f.updated_at.toISOString(),
});

export const findingFromJson = (j: FindingJson): Finding => ({
  ...j,
  first_seen: new Date(j.first_seen),
  last_seen: new Date(j.last_seen),
  detected_at: new Date(j.detected_at),
  updated_at: new Date(j.updated_at),
});

export interface IncidentOptions {
  /** Activity this close to an incident's (before or after) belongs to it. */
  quietGapMs: number;
  /** Replaced incidents are remembered this long after their last activity (≥ lookback + window). */
  rememberMs: number;
  now: Date;
}

export type IncidentStatus = 'new' | 'updated' | 'unchanged';

export interface Observed {
  status: IncidentStatus;
  finding: Finding;
  /** This evaluation holds the delivery: it must deliver, then call `markDelivered`. */
  deliver: boolean;
  /** Whether the delivery still owes the `new` alert (SNS). */
  alert: boolean;
}

const ms = (s: string) => Date.parse(s);

/** Whether activity [a1, a2] and [b1, b2] are within `gap` of each other (overlapping included). */
export function sameIncident(a1: number, a2: number, b1: number, b2: number, gap: number): boolean {
  return b1 <= a2 + gap && a1 <= b2 + gap;
}

/** The ids a finding keeps: distinct, sorted, the first `RECORD_ID_SAMPLE` (the same whatever order they came in). */
export const sampleIds = (ids: readonly string[]): string[] =>
  [...new Set(ids)].sort().slice(0, RECORD_ID_SAMPLE);

function merge(cur: Finding, seen: Finding, now: Date): Finding {
  const ids = new Set([...cur.record_ids, ...seen.record_ids]);
  const count = Math.max(cur.record_count, seen.record_count, ids.size);
  return {
    ...cur,
    first_seen: new Date(Math.min(cur.first_seen.getTime(), seen.first_seen.getTime())),
    last_seen: new Date(Math.max(cur.last_seen.getTime(), seen.last_seen.getTime())),
    hits: Math.max(cur.hits, seen.hits),
    record_ids: sampleIds([...ids]),
    record_count: count,
    token_hmac: cur.token_hmac ?? seen.token_hmac,
    client_network: cur.client_network ?? seen.client_network,
    session_id: cur.session_id ?? seen.session_id,
    updated_at: now,
  };
}

/**
 * Whether an incident really changed: its activity reaches further, or it holds more hits or records.
 * Only times and counts are compared, never the order of rows or ids an engine returned.
 */
function grew(before: Finding, after: Finding): boolean {
  return (
    after.last_seen > before.last_seen ||
    after.first_seen < before.first_seen ||
    after.hits > before.hits ||
    after.record_count > before.record_count
  );
}

const leaseFree = (e: LedgerEntry, owner: string, now: Date) =>
  e.lease === null || e.lease.owner === owner || ms(e.lease.until) <= now.getTime();

/** Writes `entry` conditionally; a lost response whose write did land is recognised by its `write_id`. */
async function put(ledger: FindingLedger, key: string, version: number, entry: LedgerEntry) {
  if (await ledger.write(key, version, entry)) return true;
  return (await ledger.read(key))?.entry.write_id === entry.write_id;
}

/**
 * The alert lifecycle of one key (rule + entity): `seen` (a candidate of this evaluation, revision 0) is
 * the current incident when their activity is within the quiet gap (then it updates it: last seen,
 * hits, records; `updated` only when it adds something), an earlier incident still remembered (nothing
 * to do), or a new incident (it replaces the current one, which is remembered). Every write is
 * conditional on the version read, so concurrent evaluations agree: one claims, the others update.
 * The writer of a new or updated incident takes the delivery's lease; a pending delivery whose lease
 * ran out (a crash between claim and publish) is taken over by the next evaluation that sees it.
 */
export async function observeIncident(
  ledger: FindingLedger,
  seen: Finding,
  opts: IncidentOptions,
): Promise<Observed> {
  const { now, quietGapMs: gap } = opts;
  const key = seen.dedupe_key;
  const lease = { owner: ledger.owner, until: new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString() };
  const s1 = seen.first_seen.getTime();
  const s2 = seen.last_seen.getTime();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const write_id = randomUUID();
    const held = await ledger.read(key);
    if (held === undefined || isNewIncident(held.entry, s1, s2, gap)) {
      const finding: Finding = {
        ...seen,
        finding_id: findingIdOf(key, seen.first_seen),
        record_ids: sampleIds(seen.record_ids),
        detected_at: now,
        updated_at: now,
        revision: 0,
        dt: toDay(now),
      };
      const closed = held ? remember(held.entry, opts) : [];
      const entry: LedgerEntry = {
        schema: 1,
        finding: findingToJson(finding),
        delivered_revision: -1,
        alerted: false,
        lease,
        closed,
        write_id,
      };
      if (await put(ledger, key, held?.version ?? 0, entry))
        return { status: 'new', finding, deliver: true, alert: true };
      continue;
    }
    const e = held.entry;
    const cur = findingFromJson(e.finding);
    if (!sameIncident(cur.first_seen.getTime(), cur.last_seen.getTime(), s1, s2, gap)) {
      // An earlier incident, already delivered and replaced: nothing to do.
      const old = e.closed.find((c) => sameIncident(ms(c.first_seen), ms(c.last_seen), s1, s2, gap));
      return {
        status: 'unchanged',
        finding: { ...seen, finding_id: old?.finding_id ?? cur.finding_id },
        deliver: false,
        alert: false,
      };
    }
    const merged = merge(cur, seen, now);
    const pending = e.delivered_revision < cur.revision;
    if (!grew(cur, merged)) {
      if (!pending || !leaseFree(e, ledger.owner, now))
        return { status: 'unchanged', finding: cur, deliver: false, alert: false };
      // A delivery left unfinished (its evaluation stopped between claim and publish): finish it.
      if (await put(ledger, key, held.version, { ...e, lease, write_id }))
        return { status: 'unchanged', finding: cur, deliver: true, alert: !e.alerted };
      continue;
    }
    const updated: Finding = { ...merged, revision: cur.revision + 1 };
    const mine = leaseFree(e, ledger.owner, now);
    const entry: LedgerEntry = {
      ...e,
      finding: findingToJson(updated),
      lease: mine ? lease : e.lease,
      write_id,
    };
    if (await put(ledger, key, held.version, entry))
      return { status: 'updated', finding: updated, deliver: mine, alert: mine && !e.alerted };
  }
  throw new ArchiverError('CONFLICT', `the ledger entry of ${key} kept changing; try the evaluation again`);
}

/** Activity outside the current incident's quiet gap, and not an earlier remembered one: a new incident. */
function isNewIncident(e: LedgerEntry, s1: number, s2: number, gap: number): boolean {
  const f = e.finding;
  if (sameIncident(ms(f.first_seen), ms(f.last_seen), s1, s2, gap)) return false;
  if (e.closed.some((c) => sameIncident(ms(c.first_seen), ms(c.last_seen), s1, s2, gap))) return false;
  // Only activity after the current incident opens a new one; older activity was judged before.
  return s1 > ms(f.last_seen);
}

function remember(e: LedgerEntry, opts: IncidentOptions): IncidentSpan[] {
  const f = e.finding;
  const span = { finding_id: f.finding_id, first_seen: f.first_seen, last_seen: f.last_seen };
  const horizon = opts.now.getTime() - opts.rememberMs;
  return [...e.closed, span].filter((c) => ms(c.last_seen) >= horizon);
}

/** Records that `revision` of the key's incident was delivered (and its `new` alert, when `alerted`). */
export async function markDelivered(ledger: FindingLedger, f: Finding, alerted: boolean): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const held = await ledger.read(f.dedupe_key);
    if (held === undefined || held.entry.finding.finding_id !== f.finding_id) return;
    const e = held.entry;
    const entry: LedgerEntry = {
      ...e,
      delivered_revision: Math.max(e.delivered_revision, f.revision),
      alerted: e.alerted || alerted,
      lease: f.revision >= e.finding.revision ? null : e.lease,
      write_id: randomUUID(),
    };
    if (await put(ledger, f.dedupe_key, held.version, entry)) return;
  }
  throw new ArchiverError('CONFLICT', `could not record the delivery of ${f.finding_id}`);
}

/** Whether the key's entry still owes a delivery (the outbox keeps it until it does not). */
export async function deliveryPending(ledger: FindingLedger, key: string): Promise<boolean> {
  const held = await ledger.read(key);
  return held !== undefined && held.entry.delivered_revision < held.entry.finding.revision;
}

/** Changes the outbox's key list with `change`, conditionally, until the write wins. */
export async function updateOutbox(
  ledger: FindingLedger,
  change: (keys: ReadonlySet<string>) => Set<string>,
): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS * 2; attempt++) {
    const { version, keys } = await ledger.readOutbox();
    const next = change(new Set(keys));
    if (next.size === keys.length && keys.every((k) => next.has(k))) return;
    if (await ledger.writeOutbox(version, [...next].sort())) return;
  }
  throw new ArchiverError('CONFLICT', 'the findings outbox kept changing; try the evaluation again');
}
