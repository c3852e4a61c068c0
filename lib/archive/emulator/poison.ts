import * as z from 'zod';
import { ArchiverError } from '../../foundation/index.ts';
import type { EmulatedSession, WireHistoryRecord } from './dataset.ts';
import { Rng, seedFrom } from './prng.ts';
import { formatTimestamp } from './wireFormat.ts';

/**
 * The invalid (or token-bearing) items the emulator can slip into history pages, one per kind of bad
 * input a client must handle. All but `token-in-unknown-field` must be quarantined by a client; that one is a
 * valid record whose unknown fields carry raw tokens (redaction must catch them).
 */
export const POISON_KINDS = [
  'port-overflow',
  'negative-year',
  'slash-date',
  'impossible-date',
  'bare-number-date',
  'end-before-start',
  'domains-not-strings',
  'non-object',
  'token-in-unknown-field',
] as const;

export type PoisonKind = (typeof POISON_KINDS)[number];

/** Per-day amount of poison: `count` items every day, or `rate` × the day's sessions (rounded, at least 1 if > 0). */
export interface PoisonConfig {
  count?: number;
  rate?: number;
  /** Only these kinds (default: all, in turn). */
  kinds?: PoisonKind[];
}

/** One injected item: it stays byte-for-byte the same across requests. */
export interface PoisonItem {
  kind: PoisonKind;
  /** Where it sorts among the day's sessions in stable order. */
  orderKey: number;
  /** Whether a strict client should accept it as a record. */
  valid: boolean;
  item: unknown;
}

const poisonSchema = z.strictObject({
  count: z.number().int().min(0).optional(),
  rate: z.number().min(0).max(10).optional(),
  kinds: z.array(z.enum(POISON_KINDS)).min(1).optional(),
});

/** Validates a poison config; a bad value is CONFIG_INVALID naming the field. */
export function resolvePoison(config: PoisonConfig | undefined): PoisonConfig | undefined {
  if (config === undefined) return undefined;
  const parsed = poisonSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ArchiverError(
      'CONFIG_INVALID',
      `invalid poison config: ${issue?.path.join('.')}: ${issue?.message}`,
      { cause: parsed.error },
    );
  }
  return parsed.data as PoisonConfig;
}

/**
 * The poison items of `day`, deterministic in (seed, day, config). Each is built from one of the day's
 * real records (so it looks like the rest) and spoiled in one way; kinds rotate from a per-day offset.
 */
export function poisonFor(
  seed: string | number,
  day: string,
  sessions: readonly EmulatedSession[],
  config: PoisonConfig,
): PoisonItem[] {
  const count =
    config.count ??
    (config.rate !== undefined && config.rate > 0
      ? Math.max(1, Math.round(config.rate * sessions.length))
      : 0);
  if (count === 0) return [];
  const kinds = config.kinds ?? POISON_KINDS;
  const rng = new Rng(seedFrom(seed, 'poison', day));
  const offset = rng.int(0, kinds.length - 1);
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  const out: PoisonItem[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[(offset + i) % kinds.length]!;
    const base = sessions.length > 0 ? rng.pick(sessions).history : syntheticRecord(rng, dayStart);
    // A fresh start instant keeps every item distinct from the real records and from each other.
    const startMs = dayStart + rng.int(0, 86_399_999);
    const record: WireHistoryRecord = {
      ...base,
      start_time: formatTimestamp(startMs),
      end_time: formatTimestamp(startMs + rng.int(60_000, 3_600_000)),
    };
    out.push({
      kind,
      orderKey: rng.next(),
      valid: kind === 'token-in-unknown-field',
      item: spoil(kind, record, i),
    });
  }
  return out;
}

function spoil(kind: PoisonKind, record: WireHistoryRecord, i: number): unknown {
  switch (kind) {
    case 'port-overflow':
      return { ...record, port: 3_000_000_000 };
    case 'negative-year':
      return { ...record, start_time: '-000001-06-01T00:00:00Z' };
    case 'slash-date':
      return { ...record, start_time: '2026/11/20 10:00:00' };
    case 'impossible-date':
      return { ...record, start_time: '2026-02-30T00:00:00Z' };
    case 'bare-number-date':
      return { ...record, start_time: '12' };
    case 'end-before-start':
      return { ...record, end_time: formatTimestamp(Date.parse(record.start_time) - 3_600_000) };
    case 'domains-not-strings':
      return { ...record, domains: i % 2 === 0 ? [42, null] : 'not-a-list.example' };
    case 'non-object':
      return [Date.parse(record.start_time), record.start_time, null, [record.start_time]][i % 4];
    case 'token-in-unknown-field': {
      const token = record.token_value ?? record.virtual_token_value ?? 'Q7PZ3K9XA';
      return { ...record, auth_token: token, details: { note: `token=${token}`, tokens: [token] } };
    }
  }
}

/** A plausible record for days without sessions, so poison can be injected into any day. */
function syntheticRecord(rng: Rng, dayStart: number): WireHistoryRecord {
  const start = dayStart + rng.int(0, 86_399_999);
  return {
    start_time: formatTimestamp(start),
    end_time: formatTimestamp(start + 60_000),
    user_email: 'poison@example.com',
    token_value: rng.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 9),
    virtual_token_value: null,
    domains: ['poison.a.pinggy.link'],
    mode: 'tcp',
    mode_udp: '',
    client_ip: '[192.0.2.1]:40000',
    port: 40_000,
  };
}
