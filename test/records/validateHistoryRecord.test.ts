import { describe, expect, it } from 'vitest';
import { validateHistoryRecord } from '../../lib/archive/records/validateHistoryRecord.ts';
import { baseRecord } from './historyRecords.ts';

const now = new Date('2026-11-20T12:00:00.000Z');
const twoDaysOn = '2026-11-22T12:00:00.000Z';

describe('validateHistoryRecord', () => {
  it('accepts the base record unchanged, unknown fields included', () => {
    const raw = baseRecord({ region: 'eu' });
    expect(validateHistoryRecord(raw, now)).toEqual({ ok: true, record: raw });
  });

  it.each([
    { name: 'the first instant of 2000', fields: { start_time: '2000-01-01T00:00:00.000Z', end_time: null } },
    { name: 'a start exactly 2 days after now', fields: { start_time: twoDaysOn, end_time: twoDaysOn } },
    { name: 'end_time equal to start_time', fields: { end_time: '2025-02-06T16:16:44.571Z' } },
    { name: 'a null end_time (still open)', fields: { end_time: null } },
    { name: 'port 0', fields: { port: 0 } },
    { name: 'port 65535', fields: { port: 65_535 } },
    { name: 'client_ip port 65535', fields: { client_ip: '[1.2.3.4]:65535' } },
    { name: 'a client_ip that is no address (kept raw)', fields: { client_ip: 'garbage' } },
    { name: 'an unbracketed IPv6 client_ip', fields: { client_ip: '2001:db8::1' } },
    { name: 'empty domains', fields: { domains: [] } },
  ])('accepts $name', ({ fields }) => {
    expect(validateHistoryRecord(baseRecord(fields), now).ok).toBe(true);
  });

  it.each([
    {
      name: 'a slash date',
      fields: { start_time: '2026/11/20 10:00:00' },
      reason: /^start_time: .*ISO 8601/,
    },
    {
      name: 'a bare number string',
      fields: { start_time: '12' },
      reason: /^start_time: '12' is not an ISO 8601/,
    },
    { name: 'a number', fields: { start_time: 12 }, reason: /^start_time: / },
    { name: 'February 30th', fields: { start_time: '2026-02-30T00:00:00Z' }, reason: /not a real calendar/ },
    { name: 'hour 24', fields: { end_time: '2026-02-10T24:00:00Z' }, reason: /^end_time: .*calendar/ },
    { name: 'a negative year', fields: { start_time: '-000001-06-01T00:00:00Z' }, reason: /^start_time: / },
    { name: 'no offset', fields: { start_time: '2026-11-20T10:00:00' }, reason: /offset/ },
    {
      name: 'a start before 2000',
      fields: { start_time: '1999-12-31T23:59:59.999Z', end_time: null },
      reason: /^start_time: before 2000-01-01T00:00:00Z$/,
    },
    {
      name: 'a start more than 2 days after now',
      fields: { start_time: '2026-11-22T12:00:00.001Z', end_time: null },
      reason: /^start_time: more than 2 days after now/,
    },
    {
      name: 'an end more than 2 days after now',
      fields: { start_time: '2026-11-20T00:00:00Z', end_time: '2099-01-01T00:00:00Z' },
      reason: /^end_time: more than 2 days after now/,
    },
    {
      name: 'an end before the start',
      fields: { start_time: '2025-02-06T16:16:44.571Z', end_time: '2025-02-06T16:16:44.570Z' },
      reason: /^end_time: before start_time$/,
    },
    { name: 'port 3000000000', fields: { port: 3_000_000_000 }, reason: /^port: / },
    { name: 'port -1', fields: { port: -1 }, reason: /^port: / },
    { name: 'port 65536', fields: { port: 65_536 }, reason: /^port: / },
    { name: 'a fractional port', fields: { port: 80.5 }, reason: /^port: / },
    { name: 'a string port', fields: { port: '80' }, reason: /^port: / },
    {
      name: 'a client_ip port 3000000000',
      fields: { client_ip: '[5.7.152.215]:3000000000' },
      reason: /^client_ip: client_ip port 3000000000 is outside 0\.\.65535$/,
    },
    { name: 'an IPv4 client_ip port 65536', fields: { client_ip: '1.2.3.4:65536' }, reason: /^client_ip: / },
    { name: 'domains as a string', fields: { domains: 'a.example' }, reason: /^domains: / },
    { name: 'a number in domains', fields: { domains: ['a.example', 7] }, reason: /^domains\.1: / },
    { name: 'a numeric user_email', fields: { user_email: 5 }, reason: /^user_email: / },
    { name: 'a numeric token_value', fields: { token_value: 123 }, reason: /^token_value: / },
    { name: 'a missing mode', fields: { mode: undefined }, reason: /^mode: / },
  ])('rejects $name with a reason naming the field', ({ fields, reason }) => {
    const result = validateHistoryRecord(baseRecord(fields as never), now);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it.each([null, 'text', 42, [], [baseRecord()]])('rejects the non-record %j', (raw) => {
    expect(validateHistoryRecord(raw, now).ok).toBe(false);
  });

  it('lists every clock problem at once', () => {
    const result = validateHistoryRecord(
      baseRecord({
        start_time: '1999-01-01T00:00:00Z',
        end_time: '1998-01-01T00:00:00Z',
        client_ip: '1.2.3.4:99999',
      }),
      now,
    );
    expect(result).toEqual({
      ok: false,
      reason:
        'start_time: before 2000-01-01T00:00:00Z; end_time: before 2000-01-01T00:00:00Z; end_time: before start_time; client_ip: client_ip port 99999 is outside 0..65535',
    });
  });

  it('never echoes a token value in its reason', () => {
    const result = validateHistoryRecord(
      baseRecord({ token_value: ['RAW-TOKEN-1'], port: 'x' } as never),
      now,
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).not.toContain('RAW-TOKEN-1');
  });
});
