import { describe, expect, it } from 'vitest';
import { apiKeyFromSecret } from '../../../functions/shared/apiKeyFromSecret.ts';
import { API_KEY_PLACEHOLDER } from '../../../functions/shared/telemetryNames.ts';
import { ArchiverError } from '../../../lib/foundation/errors/archiverError.ts';

const ID = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pinggy-AbC123';

describe('apiKeyFromSecret', () => {
  it.each([
    ['a plain string', 'k-123', 'k-123'],
    ['a string with a trailing newline', 'k-123\n', 'k-123'],
    ['JSON with an apiKey field', '{"apiKey":"k-123"}', 'k-123'],
  ])('reads the key from %s', (_name, value, key) => {
    expect(apiKeyFromSecret(value, ID)).toBe(key);
  });

  it.each([
    ['the placeholder the stack creates', API_KEY_PLACEHOLDER],
    ['an empty string', '  '],
    ['a binary value', new Uint8Array([1, 2])],
    ['no value', undefined],
    ['JSON without apiKey', '{"key":"k-123"}'],
    ['broken JSON', '{"apiKey":'],
  ])('rejects %s with CONFIG_INVALID and the command that fixes it', (_name, value) => {
    let caught: unknown;
    try {
      apiKeyFromSecret(value, ID);
    } catch (error) {
      caught = error;
    }
    expect(ArchiverError.is(caught, 'CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toContain(`aws secretsmanager put-secret-value --secret-id '${ID}'`);
  });

  it('never puts the secret value in the message', () => {
    let message = '';
    try {
      apiKeyFromSecret('{"token":"s3cr3t-value"}', ID);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('apiKey');
    expect(message).not.toContain('s3cr3t');
  });
});
