import { SecretValue, Validations } from 'aws-cdk-lib';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { API_KEY_PLACEHOLDER } from '../../functions/shared/telemetryNames.ts';
import { settingEnv } from '../../lib/archive/config/configSpec.ts';
import { asISecret } from '../cdkTypes.ts';

export interface ApiKeySecretProps {
  /** Name or ARN of an existing secret; unset = create one holding a placeholder. */
  existing?: string;
}

/** The variable a user exports the key in, for the CLI and for the stack's `SetApiKeyCommand` alike. */
export const API_KEY_ENV = settingEnv('apiKey');

/**
 * The command that stores the key (the stack's `SetApiKeyCommand` output; the README and docs/operations.md
 * quote it). `${VAR:?…}` makes the shell refuse an unset or empty variable, so an empty key is never stored.
 */
export function setApiKeyCommand(secretId: string): string {
  return `aws secretsmanager put-secret-value --secret-id ${secretId} --secret-string "\${${API_KEY_ENV}:?export ${API_KEY_ENV}=<the key from the Pinggy dashboard> first}"`;
}

/** A complete secret ARN ends in `-` plus the 6 characters Secrets Manager appends to the name. */
const COMPLETE_ARN = /^arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:.+-[A-Za-z0-9]{6}$/;

/**
 * The API key's secret: created with a placeholder the handler recognises (Secrets Manager cannot
 * store an empty value, and a generated random one would look like a real key), or imported.
 * `secretId` is what the function passes to GetSecretValue: the ARN, or the name as given.
 */
export class ApiKeySecret extends Construct {
  readonly secret: ISecret;
  readonly secretId: string;

  constructor(scope: Construct, id: string, props: ApiKeySecretProps) {
    super(scope, id);
    const existing = props.existing;
    if (existing === undefined) {
      const secret = new Secret(this, 'Secret', {
        description: 'Pinggy API key for tunnel-archiver. Set it with put-secret-value (see stack outputs).',
        secretStringValue: SecretValue.unsafePlainText(API_KEY_PLACEHOLDER),
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The Pinggy API key is issued in the Pinggy dashboard; Secrets Manager cannot rotate it. Rotate it there and put-secret-value; the function re-reads it within 5 minutes.',
      });
      this.secret = asISecret(secret);
      this.secretId = secret.secretArn;
    } else {
      this.secret = importSecret(this, 'Secret', existing);
      this.secretId = existing;
    }
  }
}

/** An existing secret by its complete ARN, a partial ARN, or its name. */
export function importSecret(scope: Construct, id: string, nameOrArn: string): ISecret {
  if (COMPLETE_ARN.test(nameOrArn)) return Secret.fromSecretCompleteArn(scope, id, nameOrArn);
  if (nameOrArn.startsWith('arn:')) return Secret.fromSecretPartialArn(scope, id, nameOrArn);
  return Secret.fromSecretNameV2(scope, id, nameOrArn);
}

/** What GetSecretValue is granted on: the complete ARN, or the `-??????` wildcard a name or partial ARN needs. */
export function secretResourceArn(secret: ISecret): string {
  return secret.secretFullArn ?? `${secret.secretArn}-??????`;
}
