import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HISTORY_RECORD_FIELDS, historyRecordSchema, portSchema } from '../../lib/archive/records/schemas.ts';
import { parseActiveList } from '../../lib/archive/upstream/parseResponses.ts';
import { baseRecord } from './historyRecords.ts';

const activeFixture = JSON.parse(
  readFileSync(new URL('../fixtures/active-documented.json', import.meta.url), 'utf8'),
) as Record<string, unknown>[];

describe('portSchema', () => {
  it.each([0, 80, 65_535])('accepts %i', (port) => expect(portSchema.safeParse(port).success).toBe(true));
  it.each([-1, 65_536, 3_000_000_000, 2 ** 31, 80.5, Number.NaN, '80', null])('rejects %j', (port) => {
    expect(portSchema.safeParse(port).success).toBe(false);
  });
});

describe('historyRecordSchema', () => {
  it('names the ten seed fields, in order', () => {
    expect(HISTORY_RECORD_FIELDS).toEqual([
      'start_time',
      'end_time',
      'user_email',
      'token_value',
      'virtual_token_value',
      'domains',
      'mode',
      'mode_udp',
      'client_ip',
      'port',
    ]);
  });

  it('keeps unknown fields', () => {
    expect(historyRecordSchema.parse(baseRecord({ region: 'eu' }))).toMatchObject({ region: 'eu' });
  });

  it.each([
    ['start_time', '2026/11/20 10:00:00'],
    ['start_time', '2026-11-20T10:00:00'],
    ['end_time', '2026-02-30T00:00:00Z'],
    ['port', 3_000_000_000],
    ['domains', [1]],
  ])('reports %s = %j as an issue at that path, with the reason', (field, value) => {
    const result = historyRecordSchema.safeParse(baseRecord({ [field]: value } as never));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path[0]).toBe(field);
  });
});

describe('parseActiveList', () => {
  it('accepts the documented active list', () => {
    expect(parseActiveList(activeFixture).ok).toBe(true);
  });

  it('reads active timestamps with the same strict parser as history', () => {
    const parsed = parseActiveList([{ ...activeFixture[0], creationTimestamp: '2024-08-23 04:04:36' }]);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.summary).toMatch(/^0\.creationTimestamp: .*not an ISO 8601/);
  });
});
