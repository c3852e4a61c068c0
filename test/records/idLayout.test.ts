import * as nodeCrypto from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type NormalisedRecord,
  normaliseRecord,
  recordIdentity,
  recordIdOf,
  sessionIdOf,
} from '../../lib/archive/records/recordId.ts';
import {
  AWKWARD_JSON_CHARACTERS,
  recordFrom,
  recordIdFields,
  recordPartsArb,
  TEST_TOKEN_KEY,
} from './historyRecords.ts';

/*
 * The ids as the archive computed them before #22 (canonical JSON by `JSON.stringify` of an object
 * with its keys in sorted order), kept here as the reference: every archive written so far holds
 * ids made this way, and the fixed-layout texts of lib/archive/records/recordId.ts must hash the same bytes.
 */
const sha128 = (text: string): string =>
  nodeCrypto.createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);

const SESSION_FIELDS = ['client_ip', 'mode', 'start_time', 'token_hmac', 'user_email', 'virtual_token_hmac'];

function referenceRecordId(n: NormalisedRecord): string {
  return sha128(`tunnel-archiver/record/v2\n${JSON.stringify(recordIdFields(n))}`);
}

function referenceSessionId(n: NormalisedRecord): string {
  const all = recordIdFields(n);
  const session = Object.fromEntries(SESSION_FIELDS.map((k) => [k, all[k]]));
  return sha128(`tunnel-archiver/session/v1\n${JSON.stringify(session)}`);
}

/** Any UTF-16 text: quotes, backslashes, control characters, lone and paired surrogates, U+2028. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom(...AWKWARD_JSON_CHARACTERS) }),
  fc.string(),
);
const nullableText = fc.option(anyText, { nil: null });
const anyNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, 1e21, 1.5e-7, Number.NaN, Number.POSITIVE_INFINITY),
);

/** Normalised records beyond what validation lets through, so the layout is checked on every input. */
const normalisedArb: fc.Arbitrary<NormalisedRecord> = fc.record({
  start_ms: anyNumber,
  end_ms: fc.option(anyNumber, { nil: null }),
  user_email: anyText,
  token_hmac: nullableText,
  virtual_token_hmac: nullableText,
  domains: fc.array(anyText, { maxLength: 5 }),
  mode: anyText,
  mode_udp: anyText,
  client_ip: anyText,
  port: fc.option(anyNumber, { nil: null }),
});

describe('the ids hash a fixed field layout', () => {
  it('equal to the canonical-JSON ids of before for arbitrary normalised fields', () => {
    fc.assert(
      fc.property(normalisedArb, (n) => {
        expect(recordIdOf(n)).toBe(referenceRecordId(n));
        expect(sessionIdOf(n)).toBe(referenceSessionId(n));
      }),
      { numRuns: 2000 },
    );
  });

  it('equal to them for arbitrary records through recordIdentity (tokens as HMACs, domains as a set)', () => {
    fc.assert(
      fc.property(recordPartsArb, (parts) => {
        const record = recordFrom(parts);
        const n = normaliseRecord(record, TEST_TOKEN_KEY);
        const ids = recordIdentity(record, TEST_TOKEN_KEY);
        expect(ids.record_id).toBe(referenceRecordId(n));
        expect(ids.session_id).toBe(referenceSessionId(n));
      }),
      { numRuns: 500 },
    );
  });
});
