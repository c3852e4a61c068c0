import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { API_KEY_PLACEHOLDER } from './telemetryNames.ts';

/** The shell command that sets the key; quoted in every "secret not set" error. */
export function putSecretCommand(secretId: string): string {
  return `aws secretsmanager put-secret-value --secret-id '${secretId}' --secret-string '<your Pinggy API key>'`;
}

/**
 * The API key from a secret's value: the plain string, or the `apiKey` field of a JSON object (the
 * console's key/value editor stores JSON). The placeholder the stack creates, an empty or a binary
 * value are `CONFIG_INVALID` with the command that fixes it; the value itself never appears in a message.
 */
export function apiKeyFromSecret(value: string | Uint8Array | undefined, secretId: string): string {
  if (typeof value !== 'string') {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `Secret '${secretId}' has no string value. Set it: ${putSecretCommand(secretId)}`,
    );
  }
  let key = value.trim();
  if (key.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(key);
    } catch {
      parsed = undefined;
    }
    const field =
      typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).apiKey : undefined;
    if (typeof field !== 'string') {
      throw new ArchiverError(
        'CONFIG_INVALID',
        `Secret '${secretId}' holds JSON without a string "apiKey" field. Set it: ${putSecretCommand(secretId)}`,
      );
    }
    key = field.trim();
  }
  if (key === '' || key === API_KEY_PLACEHOLDER) {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `Secret '${secretId}' does not hold an API key yet. Set it: ${putSecretCommand(secretId)}`,
    );
  }
  return key;
}
