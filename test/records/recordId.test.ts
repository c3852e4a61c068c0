import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  normaliseRecord,
  rawRecordId,
  recordId,
  recordIdentity,
  sessionId,
} from '../../lib/archive/records/recordId.ts';
import { HISTORY_RECORD_FIELDS, type HistoryRecord } from '../../lib/archive/records/schemas.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import { toEpochMs } from '../../lib/archive/records/toEpochMs.ts';
import { tokenHmac } from '../../lib/archive/records/tokenHmac.ts';
import {
  baseRecord,
  documentedRecord,
  OTHER_TOKEN_KEY,
  recordFrom,
  recordPartsArb,
  TEST_TOKEN_KEY,
} from './historyRecords.ts';

const HEX32 = /^[0-9a-f]{32}$/;
const key = TEST_TOKEN_KEY;

/** Same keys and values, inserted in the given order. */
function reorder<T extends object>(value: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = (value as Record<string, unknown>)[k];
  return out as T;
}

/** A change to one named field that always yields a different normalised value. */
function mutate(record: HistoryRecord, field: string): HistoryRecord {
  const next = { ...record, domains: [...record.domains] };
  switch (field) {
    case 'start_time':
      next.start_time = new Date(toEpochMs(record.start_time) + 1).toISOString();
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
      // Longer than every member, so it is new even to a set.
      next.domains.push('#'.repeat(Math.max(0, ...record.domains.map((d) => d.length)) + 1));
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

function sha128(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}

describe('recordId', () => {
  it('hashes the documented fixture record as documented, field by field', () => {
    const id = recordId(documentedRecord(), key);
    expect(id).toMatch(HEX32);
    expect(id).toBe(
      sha128(
        'tunnel-archiver/record/v2\n' +
          '{"client_ip":"[5.7.152.215]:48696","domains":["test.a.pinggy.link","test.example.com"],' +
          '"end_time":1738908926294,"mode":"http","mode_udp":"","port":null,"start_time":1738858604571,' +
          `"token_hmac":"${tokenHmac(key, 'AAXXYY99F')}","user_email":"youremail@example.com","virtual_token_hmac":null}`,
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
    {
      name: 'digits past milliseconds',
      a: '2025-02-06T16:16:44.571Z',
      b: '2025-02-06T16:16:44.571999+00:00',
    },
  ])('agrees for $name', ({ a, b }) => {
    expect(recordId(baseRecord({ start_time: a }), key)).toBe(recordId(baseRecord({ start_time: b }), key));
  });

  it.each([
    { name: 'reordered', a: ['a.example', 'b.example'], b: ['b.example', 'a.example'] },
    { name: 'repeated', a: ['a.example', 'b.example'], b: ['b.example', 'a.example', 'b.example'] },
  ])('treats domains as a set: agrees when they are $name', ({ a, b }) => {
    expect(recordId(baseRecord({ domains: a }), key)).toBe(recordId(baseRecord({ domains: b }), key));
  });

  it.each([
    { name: 'an unknown extra field', extra: { region: 'eu' } },
    { name: 'several unknown extra fields', extra: { a: 1, b: { c: [1, 2] } } },
  ])('ignores $name', ({ extra }) => {
    expect(recordId(baseRecord(extra), key)).toBe(recordId(baseRecord(), key));
  });

  it.each(HISTORY_RECORD_FIELDS.map((field) => [field]))('changes when %s changes', (field) => {
    const record = baseRecord();
    expect(recordId(mutate(record, field), key)).not.toBe(recordId(record, key));
  });

  it('depends on the token key when the record has a token, so it is not an unkeyed hash of it', () => {
    const record = baseRecord({ token_value: 'tok-1' });
    expect(recordId(record, key)).not.toBe(recordId(record, OTHER_TOKEN_KEY));
  });

  it('is the same under every token policy, so switching policy re-archives nothing', () => {
    const record = baseRecord({ token_value: 'tok-1', virtual_token_value: 'vt-1' });
    const ids = (['keep', 'hash', 'drop'] as const).map(
      (tokenPolicy) =>
        toArchiveRow(record, { tokenPolicy, tokenKey: key, archivedAt: new Date(0) }).record_id,
    );
    expect(new Set(ids)).toEqual(new Set([recordId(record, key)]));
  });

  it('rejects a key that is not 32 bytes with CONFIG_INVALID', () => {
    expect(() => recordId(baseRecord(), new Uint8Array(16))).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('is stable under key reordering, time-offset spelling and domain order (property)', () => {
    fc.assert(
      fc.property(
        recordPartsArb,
        fc.integer({ min: -720, max: 840 }),
        fc.integer({ min: -720, max: 840 }),
        fc.shuffledSubarray([...HISTORY_RECORD_FIELDS], { minLength: HISTORY_RECORD_FIELDS.length }),
        (parts, startOffset, endOffset, order) => {
          const original = recordFrom(parts);
          const respelled = reorder(
            { ...recordFrom(parts, startOffset, endOffset), domains: [...parts.domains].reverse() },
            order,
          );
          expect(recordId(respelled, key)).toBe(recordId(original, key));
        },
      ),
    );
  });

  it('differs when any named field differs (property)', () => {
    fc.assert(
      fc.property(recordPartsArb, fc.constantFrom(...HISTORY_RECORD_FIELDS), (parts, field) => {
        const record = recordFrom(parts);
        expect(recordId(mutate(record, field), key)).not.toBe(recordId(record, key));
      }),
    );
  });
});

describe('sessionId', () => {
  it('hashes the identity fields as documented', () => {
    const record = documentedRecord();
    expect(sessionId(record, key)).toBe(
      sha128(
        'tunnel-archiver/session/v1\n' +
          '{"client_ip":"[5.7.152.215]:48696","mode":"http","start_time":1738858604571,' +
          `"token_hmac":"${tokenHmac(key, 'AAXXYY99F')}","user_email":"youremail@example.com","virtual_token_hmac":null}`,
      ),
    );
  });

  it.each(['end_time', 'domains', 'port', 'mode_udp'])(
    'keeps the session_id but changes the record_id when %s changes (a revision)',
    (field) => {
      const record = baseRecord();
      const revised = mutate(record, field);
      expect(sessionId(revised, key)).toBe(sessionId(record, key));
      expect(recordId(revised, key)).not.toBe(recordId(record, key));
    },
  );

  it.each(['start_time', 'user_email', 'token_value', 'virtual_token_value', 'client_ip', 'mode'])(
    'changes when the identity field %s changes',
    (field) => {
      const record = baseRecord();
      expect(sessionId(mutate(record, field), key)).not.toBe(sessionId(record, key));
    },
  );

  it('is a 128-bit hex id, distinct from the record_id', () => {
    const { record_id, session_id } = recordIdentity(baseRecord(), key);
    expect(session_id).toMatch(HEX32);
    expect(session_id).not.toBe(record_id);
  });
});

describe('normaliseRecord', () => {
  it('reads instants as epoch ms, domains as a sorted set and tokens as HMACs', () => {
    const n = normaliseRecord(
      baseRecord({
        start_time: '2025-02-06T18:00:00.000+02:00',
        end_time: null,
        domains: ['b', 'a', 'b'],
        token_value: 't',
        virtual_token_value: 'v',
      }),
      key,
    );
    expect(n).toMatchObject({
      start_ms: Date.UTC(2025, 1, 6, 16),
      end_ms: null,
      domains: ['a', 'b'],
      token_hmac: tokenHmac(key, 't'),
      virtual_token_hmac: tokenHmac(key, 'v'),
    });
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
    expect(rawRecordId(a, key)).toBe(rawRecordId(b, key));
    expect(rawRecordId(a, key)).toMatch(HEX32);
  });

  it.each([
    { name: 'array order', a: [1, 2], b: [2, 1] },
    { name: 'a value', a: { x: 1 }, b: { x: 2 } },
    { name: 'null and an empty object', a: null, b: {} },
  ])('differs for $name', ({ a, b }) => {
    expect(rawRecordId(a, key)).not.toBe(rawRecordId(b, key));
  });

  it('is keyed: another key gives another id, and no unkeyed hash of the item', () => {
    const raw = { token_value: 'secret-token', start_time: 'bad' };
    const canonical = '{"start_time":"bad","token_value":"secret-token"}';
    expect(rawRecordId(raw, key)).not.toBe(rawRecordId(raw, OTHER_TOKEN_KEY));
    const unkeyed = createHash('sha256').update(canonical).digest('hex');
    expect(unkeyed.startsWith(rawRecordId(raw, key))).toBe(false);
  });
});
