import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rawRecordId, recordId } from '../../lib/records/recordId.ts';
import { sha256Hex } from '../../lib/records/sha256Hex.ts';
import { HISTORY_RECORD_FIELDS, type HistoryRecord } from '../../lib/upstream/schemas.ts';
import { baseRecord, documentedRecord, recordFrom, recordPartsArb } from './historyRecords.ts';

const HEX64 = /^[0-9a-f]{64}$/;

/** Same keys and values, inserted in the given order. */
function reorder<T extends object>(value: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = (value as Record<string, unknown>)[key];
  return out as T;
}

/** A change to one named field that always yields a different value. */
function mutate(record: HistoryRecord, field: string): HistoryRecord {
  const next = { ...record, domains: [...record.domains] };
  switch (field) {
    case 'start_time':
      next.start_time = new Date(Date.parse(record.start_time) + 1).toISOString();
      break;
    case 'end_time':
      next.end_time = record.end_time === null ? next.start_time : null;
      break;
    case 'token_value':
    case 'virtual_token_value':
      next[field] = record[field] === null ? '' : null;
      break;
    case 'port':
      next.port = record.port === null ? 0 : null;
      break;
    case 'domains':
      next.domains.push('x');
      break;
    case 'user_email':
    case 'mode':
    case 'mode_udp':
    case 'client_ip':
      next[field] = `${record[field]}x`;
      break;
    default:
      throw new Error(`no mutation for field ${field}: add one so the property covers it`);
  }
  return next;
}

describe('recordId', () => {
  it('hashes the documented fixture record to a stable hex digest', () => {
    const id = recordId(documentedRecord());
    expect(id).toMatch(HEX64);
    expect(id).toBe(
      sha256Hex(
        '{"client_ip":"[5.7.152.215]:48696","domains":["test.example.com","test.a.pinggy.link"],' +
          '"end_time":1738908926294,"mode":"http","mode_udp":"","port":null,"start_time":1738858604571,' +
          '"token_value":"AAXXYY99F","user_email":"youremail@example.com","virtual_token_value":null}',
      ),
    );
  });

  it.each([
    { name: '"+00:00" and "Z" spellings', a: '2025-02-06T16:16:44.571+00:00', b: '2025-02-06T16:16:44.571Z' },
    {
      name: 'another offset for the same instant',
      a: '2025-02-06T16:16:44.571Z',
      b: '2025-02-06T18:16:44.571+02:00',
    },
    { name: 'a missing offset read as UTC', a: '2025-02-06T16:16:44.571Z', b: '2025-02-06T16:16:44.571' },
    {
      name: 'digits past milliseconds',
      a: '2025-02-06T16:16:44.571Z',
      b: '2025-02-06T16:16:44.571999+00:00',
    },
  ])('agrees for $name', ({ a, b }) => {
    expect(recordId(baseRecord({ start_time: a }))).toBe(recordId(baseRecord({ start_time: b })));
  });

  it.each([
    { name: 'an unknown extra field', extra: { region: 'eu' } },
    { name: 'several unknown extra fields', extra: { a: 1, b: { c: [1, 2] } } },
  ])('ignores $name', ({ extra }) => {
    expect(recordId(baseRecord(extra))).toBe(recordId(baseRecord()));
  });

  it.each(HISTORY_RECORD_FIELDS.map((field) => [field]))('changes when %s changes', (field) => {
    const record = baseRecord();
    expect(recordId(mutate(record, field))).not.toBe(recordId(record));
  });

  it('changes when domains are reordered, since arrays keep their order', () => {
    expect(recordId(baseRecord({ domains: ['b', 'a'] }))).not.toBe(
      recordId(baseRecord({ domains: ['a', 'b'] })),
    );
  });

  it('is stable under key reordering and time-offset spelling (property)', () => {
    fc.assert(
      fc.property(
        recordPartsArb,
        fc.integer({ min: -720, max: 840 }),
        fc.integer({ min: -720, max: 840 }),
        fc.shuffledSubarray([...HISTORY_RECORD_FIELDS], { minLength: HISTORY_RECORD_FIELDS.length }),
        (parts, startOffset, endOffset, order) => {
          const original = recordFrom(parts);
          const respelled = reorder(recordFrom(parts, startOffset, endOffset), order);
          expect(recordId(respelled)).toBe(recordId(original));
        },
      ),
    );
  });

  it('differs when any named field differs (property)', () => {
    fc.assert(
      fc.property(recordPartsArb, fc.constantFrom(...HISTORY_RECORD_FIELDS), (parts, field) => {
        const record = recordFrom(parts);
        expect(recordId(mutate(record, field))).not.toBe(recordId(record));
      }),
    );
  });
});

describe('rawRecordId', () => {
  it.each([
    {
      name: 'objects with keys in another order',
      a: { x: 1, y: [1, { b: 2, a: 1 }] },
      b: { y: [1, { a: 1, b: 2 }], x: 1 },
    },
    { name: 'strings', a: 'not a record', b: 'not a record' },
  ])('agrees for $name', ({ a, b }) => {
    expect(rawRecordId(a)).toBe(rawRecordId(b));
    expect(rawRecordId(a)).toMatch(HEX64);
  });

  it.each([
    { name: 'array order', a: [1, 2], b: [2, 1] },
    { name: 'a value', a: { x: 1 }, b: { x: 2 } },
    { name: 'null and an empty object', a: null, b: {} },
  ])('differs for $name', ({ a, b }) => {
    expect(rawRecordId(a)).not.toBe(rawRecordId(b));
  });
});
