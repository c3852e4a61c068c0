import { describe, expect, it } from 'vitest';
import { testStack } from '../../devkit/infra/testApp.ts';
import { ApiKeySecret } from '../../infra/constructs/apiKeySecret.ts';

const COMPLETE = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pinggy-key-AbC123';
const PARTIAL = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pinggy-key';

describe('ApiKeySecret', () => {
  it('creates a secret when none is given and passes its ARN to the function', () => {
    const stack = testStack();
    const key = new ApiKeySecret(stack, 'Key', {});
    expect(key.secretId).toBe(key.secret.secretArn);
    expect(stack.resolve(key.secretId)).toEqual({ Ref: expect.stringMatching(/^KeySecret/) });
  });

  it.each([
    ['a complete ARN', COMPLETE, COMPLETE],
    ['a partial ARN', PARTIAL, undefined],
    ['a name', 'pinggy/api-key', undefined],
  ])('imports %s and passes it through as the secret id', (_kind, existing, fullArn) => {
    const stack = testStack();
    const key = new ApiKeySecret(stack, 'Key', { existing });
    expect(key.secretId).toBe(existing);
    expect(key.secret.secretFullArn).toBe(fullArn);
  });
});
