import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TokenPolicy } from '../../lib/archive/records/archiveRow.ts';
import { keyRecord } from '../../lib/archive/records/keyedRecord.ts';
import { recordId, sessionId } from '../../lib/archive/records/recordId.ts';
import { partitionOf, toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import {
  baseRecord,
  documentedRecord,
  recordFrom,
  recordPartsArb,
  TEST_TOKEN_KEY,
} from './historyRecords.ts';

const archivedAt = new Date('2025-03-01T00:00:00.000Z');
const hash = { tokenPolicy: 'hash', tokenKey: TEST_TOKEN_KEY, archivedAt } as const;

/** Arrays nested `depth` deep, as `JSON.parse` builds them from `[[[…]]]`. */
function nested(depth: number): unknown {
  return JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
}

describe('keyRecord', () => {
  it('keys the documented record by its record_id and the day its session started', () => {
    const keyed = keyRecord(documentedRecord(), hash);
    expect(keyed.ok).toBe(true);
    if (!keyed.ok) return;
    expect(keyed.keyed.id).toBe(recordId(documentedRecord(), TEST_TOKEN_KEY));
    expect(keyed.keyed.dt).toBe(partitionOf(documentedRecord()));
    expect(keyed.keyed.row()).toEqual(toArchiveRow(documentedRecord(), hash));
  });

  it('property: the key is the row’s id and partition, and the row built later is toArchiveRow’s, under every policy', () => {
    fc.assert(
      fc.property(
        recordPartsArb,
        fc.constantFrom<TokenPolicy>('keep', 'hash', 'drop'),
        fc.option(fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue(), { maxKeys: 3 }), {
          nil: undefined,
        }),
        (parts, tokenPolicy, extra) => {
          const record = { ...(extra ?? {}), ...recordFrom(parts) };
          const opts = { tokenPolicy, tokenKey: TEST_TOKEN_KEY, archivedAt };
          const keyed = keyRecord(record, opts);
          expect(keyed.ok).toBe(true);
          if (!keyed.ok) return;
          // Computed apart: the id and session id from the record's own functions, the day from its text.
          expect(keyed.keyed.id).toBe(recordId(record, TEST_TOKEN_KEY));
          expect(keyed.keyed.dt).toBe(partitionOf(record));
          const row = keyed.keyed.row();
          expect(row.record_id).toBe(keyed.keyed.id);
          expect(row.session_id).toBe(sessionId(record, TEST_TOKEN_KEY));
          expect(partitionOf(row)).toBe(keyed.keyed.dt);
          expect(row).toEqual(toArchiveRow(record, opts));
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    {
      what: 'a key of the wrong length',
      record: () => documentedRecord(),
      tokenKey: new Uint8Array(3),
      reason: /the token key must be exactly 32 bytes/,
    },
    {
      what: 'a time it cannot read',
      record: () => baseRecord({ start_time: 'yesterday' }),
      tokenKey: TEST_TOKEN_KEY,
      reason: /cannot map to an archive row/,
    },
    {
      // The extra fields are written to JSON when the record is keyed, not when its row is built: a
      // record already archived must fail (and be quarantined) the same way as a new one.
      what: 'extra fields past the record limits',
      record: () => baseRecord({ nested: nested(200_000) }),
      tokenKey: TEST_TOKEN_KEY,
      reason: /extra fields nested more than 32 levels deep/,
    },
  ])(
    'turns $what into a reason to quarantine the record, never an exception',
    ({ record, tokenKey, reason }) => {
      const keyed = keyRecord(record(), { ...hash, tokenKey });
      expect(keyed.ok).toBe(false);
      expect(!keyed.ok && keyed.reason).toMatch(/^cannot map to an archive row: /);
      expect(!keyed.ok && keyed.reason).toMatch(reason);
    },
  );
});
