import { describe, expect, it } from 'vitest';
import { parseArchiveEvent } from '../../../functions/archive-history/parseArchiveEvent.ts';
import { ArchiverError } from '../../../lib/foundation/errors/archiverError.ts';

const scheduled = {
  version: '0',
  id: '53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '123456789012',
  time: '2025-02-06T12:00:00Z',
  region: 'eu-west-1',
  resources: ['arn:aws:events:eu-west-1:123456789012:rule/archiver'],
  detail: {},
};

function badRequest(event: unknown): ArchiverError {
  try {
    parseArchiveEvent(event);
  } catch (error) {
    if (ArchiverError.is(error, 'BAD_REQUEST')) return error;
    throw error;
  }
  throw new Error('expected BAD_REQUEST');
}

describe('parseArchiveEvent', () => {
  it.each([
    ['an EventBridge scheduled event', scheduled],
    ['an empty object (run now)', {}],
  ])('reads %s as the planned run', (_name, event) => {
    expect(parseArchiveEvent(event)).toEqual({ kind: 'scheduled' });
  });

  it('reads backfillDays as the days to rescan, sorted and without repeats', () => {
    expect(parseArchiveEvent({ backfillDays: ['2025-02-06', '2025-02-01', '2025-02-06'] })).toEqual({
      kind: 'backfill',
      days: ['2025-02-01', '2025-02-06'],
    });
  });

  it('reads {"checksumReports": true} as judging the finished checksum jobs, and nothing else with it', () => {
    expect(parseArchiveEvent({ checksumReports: true })).toEqual({ kind: 'checksum-reports' });
    expect(badRequest({ checksumReports: false }).message).toContain('{"checksumReports": true}');
    expect(badRequest({ checksumReports: true, verify: true }).code).toBe('BAD_REQUEST');
  });

  it('reads {"verify": true} as a verification, and rejects other values of verify', () => {
    expect(parseArchiveEvent({ verify: true })).toEqual({ kind: 'verify' });
    expect(badRequest({ verify: false }).message).toContain('{"verify": true}');
    expect(badRequest({ verify: true, backfillDays: ['2025-02-06'] }).message).toContain('verify');
  });

  it.each([
    ['a non-calendar day', { backfillDays: ['2025-02-30'] }, /'2025-02-30' is not a calendar day/],
    ['an empty list', { backfillDays: [] }, /backfillDays is empty/],
    ['a number instead of a day', { backfillDays: [20250206] }, /backfillDays/],
    ['a misspelt key', { backfilldays: ['2025-02-06'] }, /expected an EventBridge scheduled event/],
    ['another event source', { 'detail-type': 'Object Created' }, /expected/],
    ['a string', 'run', /expected/],
    ['null', null, /expected/],
    ['extra keys beside backfillDays', { backfillDays: ['2025-02-06'], force: true }, /expected/],
  ])('rejects %s with BAD_REQUEST saying what is accepted', (_name, event, message) => {
    const error = badRequest(event);
    expect(error.message).toMatch(message);
    expect(error.message).toContain('backfillDays');
  });
});
