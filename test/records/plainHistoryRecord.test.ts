import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainHistoryRecord } from '../../lib/archive/records/plainHistoryRecord.ts';
import { HISTORY_RECORD_FIELDS, historyRecordSchema } from '../../lib/archive/records/schemas.ts';
import { recordFrom, recordPartsArb } from './historyRecords.ts';

/** Wire items: valid records, and ones with a field replaced by anything, removed, or an extra field added. */
const itemArb = fc.oneof(
  recordPartsArb.map((p) => recordFrom(p) as Record<string, unknown>),
  fc
    .tuple(recordPartsArb, fc.constantFrom(...HISTORY_RECORD_FIELDS), fc.anything())
    .map(([p, field, value]) => ({ ...recordFrom(p), [field]: value }) as Record<string, unknown>),
  fc.tuple(recordPartsArb, fc.constantFrom(...HISTORY_RECORD_FIELDS)).map(([p, field]) => {
    const r: Record<string, unknown> = { ...recordFrom(p) };
    delete r[field];
    return r;
  }),
  fc.tuple(recordPartsArb, fc.string(), fc.anything()).map(([p, key, value]) => {
    const r: Record<string, unknown> = { ...recordFrom(p) };
    Object.defineProperty(r, key, { value, enumerable: true, writable: true, configurable: true });
    return r;
  }),
  fc.anything(),
);

describe('plainHistoryRecord, the wire schema without zod for plain records', () => {
  it('returns exactly what zod returns (same keys in the same order), or leaves the item to zod', () => {
    fc.assert(
      fc.property(itemArb, (raw) => {
        const fast = plainHistoryRecord(raw);
        if (fast === undefined) return;
        const parsed = historyRecordSchema.safeParse(raw);
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
        expect(Object.keys(fast)).toEqual(Object.keys(parsed.data as object));
        expect(fast.domains).not.toBe((raw as { domains: unknown }).domains);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes every valid record without extra fields', () => {
    fc.assert(
      fc.property(recordPartsArb, (parts) => {
        expect(plainHistoryRecord(recordFrom(parts))).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });
});
