import { tokenKeyFromSecret } from './tokenKeyFromSecret.ts';

/**
 * The token key from the stack's token-key secret (Secrets Manager), as the Lambda functions read it:
 * SHA-256 of the secret string (`tokenKeyFromSecret`). The adapter of `token-hmac` for an archive in AWS;
 * the SDK is loaded only when it is used.
 */
export async function secretsManagerTokenKey(secretId: string): Promise<Uint8Array> {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return tokenKeyFromSecret(out.SecretString, secretId);
  } finally {
    client.destroy();
  }
}
