import { describe, expect, it } from 'vitest';
import { redactError, redactText } from '../../lib/archive/upstream/redactSecret.ts';
import { extractServerMessage, isRetryableStatus } from '../../lib/archive/upstream/statusErrors.ts';

describe('extractServerMessage', () => {
  it.each([
    ['{"message":"too old"}', 'application/json', 'too old'],
    ['{"error":"Bad Request","message":""}', 'application/json', 'Bad Request'],
    ['{"detail":"  spaced\\n out  "}', undefined, 'spaced out'],
    ['{"status":400}', 'application/json', undefined],
    ['[1,2]', 'application/json', undefined],
    ['{"message": "unterminated', 'application/json', '{"message": "unterminated'],
    ['<html><head><title>502 Bad Gateway</title></head></html>', 'text/html', '502 Bad Gateway'],
    ['<html><body><h1>Down <b>now</b></h1></body></html>', 'text/html; charset=utf-8', 'Down now'],
    ['<html><body>no title</body></html>', 'text/html', undefined],
    ['', 'application/json', undefined],
    ['   \n ', undefined, undefined],
    ['Service busy', 'text/plain', 'Service busy'],
    ['x'.repeat(1000), 'text/plain', `${'x'.repeat(300)}…`],
  ])('reads %o (%s) as %o', (body, contentType, expected) => {
    expect(extractServerMessage(body, contentType)).toBe(expected);
  });
});

describe('isRetryableStatus', () => {
  it.each([
    [429, true],
    [408, true],
    [500, true],
    [503, true],
    [599, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [422, false],
  ])('HTTP %i -> %s', (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });
});

describe('redactError', () => {
  it('copies name, code, message and the cause chain with the secret masked', () => {
    const inner = Object.assign(new Error('socket said sekrit'), {
      code: 'ECONNRESET',
      socket: { huge: true },
    });
    const outer = Object.assign(new Error('wrapped sekrit', { cause: inner }), { code: 'UND_ERR_SOCKET' });
    const copy = redactError(outer, 'sekrit');
    expect(copy).toMatchObject({ message: 'wrapped [redacted]', code: 'UND_ERR_SOCKET' });
    expect(copy.cause).toMatchObject({ message: 'socket said [redacted]', code: 'ECONNRESET' });
    expect(copy.cause).not.toHaveProperty('socket');
    expect(copy.stack).not.toContain('sekrit');
  });

  it('turns a non-error into an error', () => {
    expect(redactError('abc sekrit', 'sekrit').message).toBe('abc [redacted]');
  });

  it('leaves text alone for an empty secret', () => {
    expect(redactText('abc', '')).toBe('abc');
  });
});
