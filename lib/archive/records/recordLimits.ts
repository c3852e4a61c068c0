import { HISTORY_RECORD_FIELDS } from './schemas.ts';

/**
 * The most a single upstream item may hold; an item past any of them is quarantined with the reason
 * (docs/data-contract.md, "Limits"), never archived and never a day's failure. A documented record is
 * 2 levels deep, about 15 values and 400 characters: the limits leave room for wide records, and bound
 * what one page's records can hold in memory (2,000 records of 256 values at most).
 * - `maxDepth`: levels of nesting, the item itself being level 1 (`{"a":[1]}` is 2 deep);
 * - `maxValues`: JSON values, the item and every object, array, string, number, boolean and null in it;
 * - `maxChars`: characters of its strings and keys (UTF-16 code units, as JavaScript counts them).
 */
export const RECORD_LIMITS = { maxDepth: 32, maxValues: 256, maxChars: 256 * 1024 } as const;

export type RecordLimits = {
  readonly maxDepth: number;
  readonly maxValues: number;
  readonly maxChars: number;
};

/** Which limit an item passed, and the reason a person reads in the quarantine file. */
export interface OverLimit {
  limit: 'depth' | 'values' | 'chars';
  reason: string;
}

/**
 * The first limit `raw` passes, or undefined. Depth-checked (it never descends past `maxDepth`, so no
 * nesting makes it throw) and stopped at the first limit passed, so a hostile item costs at most the
 * limit's worth of work (on a loaded machine, about a tenth of what judging a record costs).
 */
export function recordOverLimit(raw: unknown, limits: RecordLimits = RECORD_LIMITS): OverLimit | undefined {
  const tally: Tally = { values: 0, chars: 0, over: undefined, limits };
  measure(raw, 1, tally);
  const over = tally.over as OverLimit['limit'] | undefined;
  if (over === undefined) return undefined;
  const reason =
    over === 'depth'
      ? `nested more than ${limits.maxDepth} levels deep (the record limit)`
      : over === 'values'
        ? `holds more than ${limits.maxValues} JSON values (the record limit)`
        : `holds more than ${limits.maxChars} characters of text (the record limit)`;
  return { limit: over, reason };
}

interface Tally {
  values: number;
  chars: number;
  over: OverLimit['limit'] | undefined;
  readonly limits: RecordLimits;
}

/** Adds `value` (at `depth`) to the tally; false once a limit is passed (the tally says which). */
function measure(value: unknown, depth: number, t: Tally): boolean {
  if (++t.values > t.limits.maxValues) {
    t.over = 'values';
    return false;
  }
  if (typeof value === 'string') {
    t.chars += value.length;
  } else if (value !== null && typeof value === 'object') {
    if (depth > t.limits.maxDepth) {
      t.over = 'depth';
      return false;
    }
    if (Array.isArray(value)) {
      for (const item of value) if (!measure(item, depth + 1, t)) return false;
    } else {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        t.chars += key.length;
        if (!measure((value as Record<string, unknown>)[key], depth + 1, t)) return false;
      }
    }
  }
  if (t.chars > t.limits.maxChars) {
    t.over = 'chars';
    return false;
  }
  return true;
}

/** Longest text of one named field kept in an over-limit item's stand-in. */
const STAND_IN_TEXT = 256;

/**
 * What the quarantine keeps of an item past a limit: its named top-level fields (see
 * `HISTORY_RECORD_FIELDS`) that are strings (cut to 256 characters), numbers, booleans or null, the names of
 * its other top-level fields (at most 32) and the limit it passed. Bounded whatever the item, so the
 * quarantine file, its id and its redaction never meet the item's depth or size. Two over-limit items with
 * the same stand-in share one quarantine file.
 */
export function overLimitStandIn(raw: unknown, over: OverLimit): Record<string, unknown> {
  const named: Record<string, unknown> = {};
  const others: string[] = [];
  const isObject = raw !== null && typeof raw === 'object' && !Array.isArray(raw);
  if (isObject) {
    const fields = new Set<string>(HISTORY_RECORD_FIELDS);
    for (const key in raw) {
      if (!Object.hasOwn(raw, key)) continue;
      const value = (raw as Record<string, unknown>)[key];
      const scalar = value === null || ['string', 'number', 'boolean'].includes(typeof value);
      if (fields.has(key) && scalar)
        named[key] = typeof value === 'string' ? value.slice(0, STAND_IN_TEXT) : value;
      else if (others.length < 32) others.push(key.slice(0, STAND_IN_TEXT));
    }
  }
  return {
    over_limit: over.limit,
    kind: Array.isArray(raw) ? 'array' : isObject ? 'object' : typeof raw,
    fields: named,
    other_fields: others.sort(),
  };
}
