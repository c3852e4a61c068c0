import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ArchiveRow, TokenPolicy } from '../../lib/archive/records/archiveRow.ts';
import { recordId, sessionId } from '../../lib/archive/records/recordId.ts';
import { partitionOf, toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import { tokenHmac } from '../../lib/archive/records/tokenHmac.ts';
import { baseRecord, documentedRecord, TEST_TOKEN_KEY } from './historyRecords.ts';

const archivedAt = new Date('2025-03-01T00:00:00.000Z');
const tokenKey = TEST_TOKEN_KEY;
const hash = { tokenPolicy: 'hash', tokenKey, archivedAt } as const;
const hmac = (value: string) => tokenHmac(tokenKey, value);

describe('toArchiveRow', () => {
  it('maps the documented fixture record to the full row', () => {
    const record = documentedRecord();
    expect(toArchiveRow(record, hash)).toEqual<ArchiveRow>({
      record_id: recordId(record, tokenKey),
      session_id: sessionId(record, tokenKey),
      start_time: new Date('2025-02-06T16:16:44.571Z'),
      end_time: new Date('2025-02-07T06:15:26.294Z'),
      user_email: 'youremail@example.com',
      token_value: null,
      virtual_token_value: null,
      token_hmac: hmac('AAXXYY99F'),
      virtual_token_hmac: null,
      // As the API listed them: the tunnel's own address is not moved behind a custom domain.
      domains: ['test.example.com', 'test.a.pinggy.link'],
      mode: 'http',
      mode_udp: '',
      client_ip: '[5.7.152.215]:48696',
      client_address: '5.7.152.215',
      client_port: 48696,
      port: null,
      extra_json: null,
      archived_at: archivedAt,
      // The documented spelling (ms, +00:00): the timestamp gives it back, so no text is kept.
      start_time_text: null,
      end_time_text: null,
    });
  });

  it.each<{ policy: TokenPolicy; raw: boolean; hashed: boolean }>([
    { policy: 'keep', raw: true, hashed: true },
    { policy: 'hash', raw: false, hashed: true },
    { policy: 'drop', raw: false, hashed: false },
  ])('applies token policy $policy', ({ policy, raw, hashed }) => {
    const row = toArchiveRow(baseRecord({ token_value: 'tok-1', virtual_token_value: 'vt-2' }), {
      tokenPolicy: policy,
      tokenKey,
      archivedAt,
    });
    expect(row.token_value).toBe(raw ? 'tok-1' : null);
    expect(row.virtual_token_value).toBe(raw ? 'vt-2' : null);
    expect(row.token_hmac).toBe(hashed ? hmac('tok-1') : null);
    expect(row.virtual_token_hmac).toBe(hashed ? hmac('vt-2') : null);
  });

  it.each<TokenPolicy>(['keep', 'hash', 'drop'])('keeps null tokens null under policy %s', (policy) => {
    const row = toArchiveRow(baseRecord({ token_value: null, virtual_token_value: null }), {
      tokenPolicy: policy,
      tokenKey,
      archivedAt,
    });
    expect([row.token_value, row.virtual_token_value, row.token_hmac, row.virtual_token_hmac]).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });

  it.each([
    { client_ip: '[2001:db8::1]:443', address: '2001:db8::1', port: 443 },
    { client_ip: '2001:db8::42', address: '2001:db8::42', port: null },
    { client_ip: '1.2.3.4:80', address: '1.2.3.4', port: 80 },
    { client_ip: 'garbage', address: null, port: null },
  ])('splits client_ip $client_ip and keeps the raw text', ({ client_ip, address, port }) => {
    const row = toArchiveRow(baseRecord({ client_ip }), hash);
    expect(row).toMatchObject({ client_ip, client_address: address, client_port: port });
  });

  it.each([
    { name: 'no extra fields', extra: {}, json: null },
    { name: 'one extra field', extra: { region: 'eu' }, json: '{"region":"eu"}' },
    {
      name: 'nested extras, sorted',
      extra: { zeta: { b: 2, a: 1 }, alpha: [3, 1] },
      json: '{"alpha":[3,1],"zeta":{"a":1,"b":2}}',
    },
    { name: 'an extra null', extra: { gone: null }, json: '{"gone":null}' },
  ])('writes $name to extra_json', ({ extra, json }) => {
    const row = toArchiveRow(baseRecord(extra), hash);
    expect(row.extra_json).toBe(json);
    expect(row.record_id).toBe(recordId(baseRecord(), tokenKey));
  });

  it('writes only own extra fields, as Object.keys lists them, to extra_json', () => {
    // A record whose prototype carries enumerable fields: they are not the record's, so not archived.
    const inherited = Object.assign(
      Object.create({ proto_only: 'x' }) as object,
      baseRecord({ region: 'eu' }),
    );
    const row = toArchiveRow(inherited as ReturnType<typeof baseRecord>, hash);
    expect(row.extra_json).toBe('{"region":"eu"}');
    const named = Object.assign(Object.create({ stray: 1 }) as object, baseRecord());
    expect(toArchiveRow(named as ReturnType<typeof baseRecord>, hash).extra_json).toBeNull();
  });

  it.each([
    { start: '2025-02-06T16:16:44.571+00:00', ms: Date.UTC(2025, 1, 6, 16, 16, 44, 571) },
    { start: '2025-02-06T16:16:44Z', ms: Date.UTC(2025, 1, 6, 16, 16, 44) },
    { start: '2025-02-06T23:30:00.000-02:00', ms: Date.UTC(2025, 1, 7, 1, 30) },
    { start: '2025-02-06T16:16:44.571987+00:00', ms: Date.UTC(2025, 1, 6, 16, 16, 44, 571) },
  ])('converts start_time $start to a UTC Date with ms precision', ({ start, ms }) => {
    expect(toArchiveRow(baseRecord({ start_time: start }), hash).start_time.getTime()).toBe(ms);
  });

  it('keeps a null end_time and a numeric port', () => {
    const row = toArchiveRow(baseRecord({ end_time: null, port: 10003, mode: 'tcp' }), hash);
    expect(row).toMatchObject({ end_time: null, port: 10003, mode: 'tcp' });
  });

  it('copies domains and archivedAt so later mutation of the inputs cannot change the row', () => {
    const record = baseRecord({ domains: ['a.example'] });
    const at = new Date(archivedAt);
    const row = toArchiveRow(record, { tokenPolicy: 'hash', tokenKey, archivedAt: at });
    record.domains.push('b.example');
    at.setTime(0);
    expect(row.domains).toEqual(['a.example']);
    expect(row.archived_at).toEqual(archivedAt);
  });

  it('stores domains in the order received, repeats included, while record_id hashes them as a set', () => {
    const sent = ['b.example', 'a.example', 'b.example'];
    const row = toArchiveRow(baseRecord({ domains: sent }), hash);
    expect(row.domains).toEqual(['b.example', 'a.example', 'b.example']);
    const reordered = toArchiveRow(baseRecord({ domains: ['a.example', 'b.example'] }), hash);
    expect(reordered.record_id).toBe(row.record_id);
  });

  it('keeps the sent text of a time the timestamp column cannot give back, and only then', () => {
    const cases: [string, string | null][] = [
      ['2025-02-06T16:16:44.571+00:00', null], // the documented spelling
      ['2025-02-06T18:16:44.571+02:00', '2025-02-06T18:16:44.571+02:00'], // another offset
      ['2025-02-06T16:16:44.571Z', '2025-02-06T16:16:44.571Z'],
      ['2025-02-06T16:16:44.571234+00:00', '2025-02-06T16:16:44.571234+00:00'], // beyond milliseconds
      ['2025-02-06T16:16+00:00', '2025-02-06T16:16+00:00'], // no seconds
    ];
    for (const [text, kept] of cases) {
      const row = toArchiveRow(baseRecord({ start_time: text, end_time: text }), hash);
      expect(row.start_time_text, text).toBe(kept);
      expect(row.end_time_text, text).toBe(kept);
    }
    expect(toArchiveRow(baseRecord({ end_time: null }), hash).end_time_text).toBeNull();
  });

  it('writes 128-bit hex ids', () => {
    const row = toArchiveRow(baseRecord(), hash);
    expect(row.record_id).toMatch(/^[0-9a-f]{32}$/);
    expect(row.session_id).toMatch(/^[0-9a-f]{32}$/);
  });

  const secrets = {
    api_key: 'RAW-API-KEY',
    nested: { Authorization: 'Bearer RAW-BEARER', list: [{ clientSecret: 'RAW-SECRET', ok: 'kept' }] },
    region: 'eu',
  };

  it.each<{ policy: TokenPolicy; json: string | null }>([
    {
      policy: 'keep',
      json: '{"api_key":"RAW-API-KEY","nested":{"Authorization":"Bearer RAW-BEARER","list":[{"clientSecret":"RAW-SECRET","ok":"kept"}]},"region":"eu"}',
    },
    {
      policy: 'hash',
      json: `{"api_key":"${hmac('RAW-API-KEY')}","nested":{"Authorization":"${hmac('Bearer RAW-BEARER')}","list":[{"clientSecret":"${hmac('RAW-SECRET')}","ok":"kept"}]},"region":"eu"}`,
    },
    { policy: 'drop', json: '{"nested":{"list":[{"ok":"kept"}]},"region":"eu"}' },
  ])('redacts token-bearing extra fields at any depth under policy $policy', ({ policy, json }) => {
    const row = toArchiveRow(baseRecord(secrets), { tokenPolicy: policy, tokenKey, archivedAt });
    expect(row.extra_json).toBe(json);
  });

  it('writes a null extra_json when drop removes every extra field', () => {
    const row = toArchiveRow(baseRecord({ session_token: 'RAW' }), {
      tokenPolicy: 'drop',
      tokenKey,
      archivedAt,
    });
    expect(row.extra_json).toBeNull();
  });

  it.each(['2025-02-06 16:16:44Z', '2025-02-06T16:16:44', '2025-02-30T00:00:00Z'])(
    'rejects the start_time %s with SCHEMA_MISMATCH instead of guessing',
    (start_time) => {
      expect(() => toArchiveRow(baseRecord({ start_time }), hash)).toThrow(
        expect.objectContaining({ code: 'SCHEMA_MISMATCH' }),
      );
    },
  );

  it('rejects a time it cannot read with SCHEMA_MISMATCH', () => {
    expect(() => toArchiveRow(baseRecord({ start_time: 'yesterday' }), hash)).toThrow(
      expect.objectContaining({ code: 'SCHEMA_MISMATCH' }),
    );
  });
});

describe('toArchiveRow (property)', () => {
  const rawToken = fc.nat().map((n) => `RAW-TOKEN-${n}`);
  const tokenName = fc.constantFrom(
    'token',
    'authToken',
    'client_secret',
    'password',
    'apiKey',
    'Authorization',
  );
  const extras = fc.dictionary(
    fc.constantFrom('meta', 'region', 'nested'),
    fc.oneof(
      fc.dictionary(tokenName, rawToken, { minKeys: 1 }),
      fc.array(fc.dictionary(tokenName, rawToken)),
    ),
  );

  it.each<TokenPolicy>(['hash', 'drop'])(
    'leaves no raw token anywhere in the row under %s, from the token columns or extra fields (property)',
    (tokenPolicy) => {
      fc.assert(
        fc.property(
          rawToken,
          fc.option(rawToken, { nil: null }),
          extras,
          fc.dictionary(tokenName, rawToken),
          (token_value, virtual_token_value, nested, topLevel) => {
            const record = baseRecord({ token_value, virtual_token_value, ...nested, ...topLevel });
            const row = toArchiveRow(record, { tokenPolicy, tokenKey, archivedAt });
            expect(JSON.stringify(row)).not.toContain('RAW-TOKEN-');
          },
        ),
      );
    },
  );
});

describe('partitionOf', () => {
  it.each([
    { start: '2025-02-06T16:16:44.571+00:00', day: '2025-02-06' },
    { start: '2025-02-06T23:59:59.999Z', day: '2025-02-06' },
    { start: '2025-02-07T00:00:00.000Z', day: '2025-02-07' },
    { start: '2025-02-06T23:30:00.000-02:00', day: '2025-02-07' },
    { start: '2025-02-07T01:00:00.000+05:00', day: '2025-02-06' },
  ])('puts a session starting $start in dt=$day, from a record or its row', ({ start, day }) => {
    const record = baseRecord({ start_time: start });
    expect(partitionOf(record)).toBe(day);
    expect(partitionOf(toArchiveRow(record, hash))).toBe(day);
  });
});
