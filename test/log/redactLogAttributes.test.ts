import { describe, expect, it } from 'vitest';
import { jsonLineLogger, redactingLogger } from '../../lib/foundation/log/logger.ts';
import {
  isTokenBearingName,
  REDACTED,
  redactLogAttributes,
} from '../../lib/foundation/log/redactLogAttributes.ts';

const RAW = 'tok_live_abcdef0123456789';

describe('isTokenBearingName', () => {
  it.each([
    ['token_value', true],
    ['virtual_token_value', true],
    ['virtualToken', true],
    ['TOKEN', true],
    ['apiKey', true],
    ['x-api-key', true],
    ['Authorization', true],
    ['client_secret', true],
    ['tokenPolicy', false],
    ['apiKeySecretId', false],
    ['user_email', false],
    ['day', false],
  ])('%s -> %s', (name, expected) => {
    expect(isTokenBearingName(name)).toBe(expected);
  });
});

describe('redactLogAttributes', () => {
  it('redacts token-bearing members at any depth, in objects and arrays, and keeps the rest', () => {
    const attrs = {
      day: '2026-11-20',
      record: { token_value: RAW, nested: [{ virtualToken: RAW, extra: { myToken: RAW } }], port: 3 },
      headers: { Authorization: `Bearer ${RAW}` },
      tokenPolicy: 'hash',
      empty: { token_value: null },
    };
    const out = redactLogAttributes(attrs);
    expect(JSON.stringify(out)).not.toContain(RAW);
    expect(out).toEqual({
      day: '2026-11-20',
      record: {
        token_value: REDACTED,
        nested: [{ virtualToken: REDACTED, extra: { myToken: REDACTED } }],
        port: 3,
      },
      headers: { Authorization: REDACTED },
      tokenPolicy: 'hash',
      empty: { token_value: null },
    });
    expect(attrs.record.token_value).toBe(RAW); // the caller's object is untouched
  });

  it('survives cycles', () => {
    const a: Record<string, unknown> = { token: RAW };
    a.self = a;
    expect(JSON.stringify(redactLogAttributes(a))).not.toContain(RAW);
  });
});

describe('loggers', () => {
  it('jsonLineLogger and redactingLogger never write a raw token', () => {
    const lines: string[] = [];
    jsonLineLogger('debug', (l) => lines.push(l)).warn('bad record', { raw: { token_value: RAW } });
    const seen: unknown[] = [];
    const inner = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (_m: string, a?: unknown) => seen.push(a),
    };
    redactingLogger(inner).error('x', { apiKey: RAW });
    expect(lines.join('\n') + JSON.stringify(seen)).not.toContain(RAW);
    expect(seen).toEqual([{ apiKey: REDACTED }]);
  });
});
