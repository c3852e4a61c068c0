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
        // The item itself when its keys come in the schema's order and its port is not -0; else a copy.
        const asIs =
          Object.keys(raw as object).join() === HISTORY_RECORD_FIELDS.join() &&
          !Object.is((raw as { port: unknown }).port, -0);
        if (asIs) expect(fast).toBe(raw);
        else expect(fast).not.toBe(raw);
      }),
      { numRuns: 3000 },
    );
  });

  it('copies an item whose keys come in another order, or whose port is -0, into the schema’s form', () => {
    const parts = fc.sample(recordPartsArb, { numRuns: 1, seed: 3 })[0] as never;
    const made = recordFrom(parts) as Record<string, unknown>;
    // As the server writes it: the schema's order.
    const record = Object.fromEntries(HISTORY_RECORD_FIELDS.map((f) => [f, made[f]]));
    expect(plainHistoryRecord(record)).toBe(record);
    const reordered = Object.fromEntries(Object.entries(record).reverse());
    const copy = plainHistoryRecord(reordered);
    expect(copy).not.toBe(reordered);
    expect(Object.keys(copy as object)).toEqual(HISTORY_RECORD_FIELDS);
    const negativeZero = plainHistoryRecord({ ...record, port: -0 });
    expect(Object.is(negativeZero?.port, 0)).toBe(true);
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
