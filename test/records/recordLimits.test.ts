import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeHistoryContent } from '../../lib/archive/records/judgeHistoryContent.ts';
import { rawRecordId } from '../../lib/archive/records/recordId.ts';
import { overLimitStandIn, RECORD_LIMITS, recordOverLimit } from '../../lib/archive/records/recordLimits.ts';
import { redactTokens } from '../../lib/archive/records/redactTokens.ts';
import { documentedRecord, TEST_TOKEN_KEY } from './historyRecords.ts';

/** A record whose `extra` field is an array nested `depth` levels deep (the record being level 1). */
function deepRecord(depth: number): Record<string, unknown> {
  const text = `${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`;
  return { ...documentedRecord(), extra: JSON.parse(text) as unknown };
}

const now = new Date('2025-02-08T00:00:00Z');

describe('recordOverLimit', () => {
  it.each([
    { what: 'a documented record', raw: documentedRecord(), limit: undefined },
    {
      what: `a record ${RECORD_LIMITS.maxDepth} levels deep`,
      raw: deepRecord(RECORD_LIMITS.maxDepth),
      limit: undefined,
    },
    {
      what: `a record ${RECORD_LIMITS.maxDepth + 1} levels deep`,
      raw: deepRecord(RECORD_LIMITS.maxDepth + 1),
      limit: 'depth',
    },
    { what: 'a record 10,000 levels deep', raw: deepRecord(10_000), limit: 'depth' },
    {
      what: `a record of ${RECORD_LIMITS.maxValues} values`,
      raw: { ...documentedRecord(), extra: Array(RECORD_LIMITS.maxValues - 14).fill(0) },
      limit: undefined,
    },
    {
      what: `a record of ${RECORD_LIMITS.maxValues + 1} values`,
      raw: { ...documentedRecord(), extra: Array(RECORD_LIMITS.maxValues - 13).fill(0) },
      limit: 'values',
    },
    {
      what: 'a record with more text than the limit',
      raw: { ...documentedRecord(), note: 'x'.repeat(RECORD_LIMITS.maxChars) },
      limit: 'chars',
    },
    {
      what: 'a record with long keys past the limit',
      raw: { ...documentedRecord(), ['k'.repeat(RECORD_LIMITS.maxChars)]: 1 },
      limit: 'chars',
    },
  ])('$what: $limit', ({ raw, limit }) => {
    expect(recordOverLimit(raw)?.limit).toBe(limit);
  });

  it('counts every value of a documented record (the limits are stated in these units)', () => {
    // The record, its 10 fields and its 2 domains: 13 values; 2 levels.
    expect(recordOverLimit(documentedRecord(), { maxDepth: 2, maxValues: 13, maxChars: 10_000 })).toBe(
      undefined,
    );
    expect(recordOverLimit(documentedRecord(), { maxDepth: 1, maxValues: 13, maxChars: 10_000 })?.limit).toBe(
      'depth',
    );
    expect(recordOverLimit(documentedRecord(), { maxDepth: 2, maxValues: 12, maxChars: 10_000 })?.limit).toBe(
      'values',
    );
  });

  it('never throws, and bounds any item with a stand-in whose id and redaction never throw', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 6 }), fc.integer({ min: 1, max: 20 }), (value, levels) => {
        let raw: unknown = value;
        for (let i = 0; i < levels * 500; i++) raw = { token_value: 'SECRET123', inner: [raw] };
        const over = recordOverLimit(raw);
        expect(over).toBeDefined();
        const standIn = overLimitStandIn(raw, over ?? { limit: 'depth', reason: '' });
        expect(JSON.stringify(standIn).length).toBeLessThan(20_000);
        expect(rawRecordId(standIn, TEST_TOKEN_KEY)).toMatch(/^[0-9a-f]{32}$/);
        expect(JSON.stringify(redactTokens(standIn, 'hash', TEST_TOKEN_KEY))).not.toContain('SECRET123');
      }),
      { numRuns: 30 },
    );
  });
});

describe('judgeHistoryContent', () => {
  it('rejects a 10,000-deep item with the limit as its reason and keeps only its bounded stand-in', () => {
    const deep = deepRecord(10_000);
    const { content, rejected } = judgeHistoryContent([documentedRecord(), deep], now);
    expect(content).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toBe(
      `content[1]: nested more than ${RECORD_LIMITS.maxDepth} levels deep (the record limit)`,
    );
    expect(rejected[0]?.raw).toEqual({
      over_limit: 'depth',
      kind: 'object',
      fields: { ...documentedRecord(), domains: undefined },
      other_fields: ['domains', 'extra'],
    });
  });

  it('keeps an item within the limits as it was received, whatever its reason', () => {
    const bad = { ...documentedRecord(), port: 'eighty' };
    const { rejected } = judgeHistoryContent([bad], now);
    expect(rejected[0]?.raw).toBe(bad);
  });
});
