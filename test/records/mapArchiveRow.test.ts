import { describe, expect, it } from 'vitest';
import { mapArchiveRow } from '../../lib/records/mapArchiveRow.ts';
import { toArchiveRow } from '../../lib/records/toArchiveRow.ts';
import { documentedRecord, TEST_TOKEN_KEY } from './historyRecords.ts';

const archivedAt = new Date('2025-03-01T00:00:00.000Z');

describe('mapArchiveRow', () => {
  it('gives the row toArchiveRow gives, as a value', () => {
    const opts = { tokenPolicy: 'hash', tokenKey: TEST_TOKEN_KEY, archivedAt } as const;
    expect(mapArchiveRow(documentedRecord(), opts)).toEqual({
      ok: true,
      row: toArchiveRow(documentedRecord(), opts),
    });
  });

  it('turns a mapping that throws into a reason to quarantine the record, never an exception', () => {
    const opts = { tokenPolicy: 'hash', tokenKey: new Uint8Array(3), archivedAt } as const;
    const mapped = mapArchiveRow(documentedRecord(), opts);
    expect(mapped.ok).toBe(false);
    expect(!mapped.ok && mapped.reason).toMatch(
      /^cannot map to an archive row: the token key must be exactly 32 bytes/,
    );
  });
});
