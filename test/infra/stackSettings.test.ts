import { describe, expect, it } from 'vitest';
import { readStackSettings } from '../../infra/stackSettings.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

const from = (context: Record<string, unknown>) => readStackSettings((key) => context[key]);

describe('readStackSettings', () => {
  it('defaults to a 6-hourly schedule, hashed tokens, no lock, no tracing, a created secret', () => {
    expect(from({})).toEqual({
      schedule: 'rate(6 hours)',
      objectLockMode: 'GOVERNANCE',
      tracing: false,
      tokenValues: 'hash',
      fanoutConcurrency: 4,
      fanoutRangePages: 500,
      reservedConcurrency: false,
    });
  });

  it('accepts -c strings and cdk.json values alike', () => {
    expect(from({ objectLockDays: '30', tracing: 'true' })).toMatchObject({
      objectLockDays: 30,
      tracing: true,
    });
    expect(from({ objectLockDays: 30, tracing: true })).toMatchObject({ objectLockDays: 30, tracing: true });
  });

  it('treats empty strings as unset', () => {
    expect(from({ apiKeySecret: '', alarmEmail: ' ' })).not.toHaveProperty('apiKeySecret');
    expect(from({ alarmEmail: ' ' })).not.toHaveProperty('alarmEmail');
  });

  it.each([
    ['objectLockDays', '3O', /objectLockDays/],
    ['objectLockDays', '0', /objectLockDays/],
    ['objectLockMode', 'governance', /objectLockMode/],
    ['schedule', 'every 6 hours', /rate\(6 hours\)/],
    ['alarmEmail', 'ops', /e-mail/],
    ['tracing', 'yes', /tracing/],
    ['tokenValues', 'plain', /tokenValues/],
  ])('rejects %s=%s with CONFIG_INVALID naming the key', (key, value, message) => {
    let caught: unknown;
    try {
      from({ [key]: value });
    } catch (error) {
      caught = error;
    }
    expect(ArchiverError.is(caught, 'CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });
});
