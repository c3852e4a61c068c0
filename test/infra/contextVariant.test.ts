import { describe, expect, it } from 'vitest';
import {
  iamStatements,
  nagViolations,
  propsOf,
  staleAcknowledgements,
  synthApp,
} from '../../devkit/infra/testApp.ts';

// Every optional context key at once, as strings, the way `cdk deploy -c key=value` passes them.
const { app, stack, template } = synthApp({
  context: {
    objectLockDays: '365',
    objectLockMode: 'COMPLIANCE',
    apiKeySecret: 'pinggy/api-key',
    alarmEmail: 'ops@example.com',
    schedule: 'cron(15 */4 * * ? *)',
    tracing: 'true',
    tokenValues: 'drop',
  },
});

describe('TunnelArchiverStack with every context option set', () => {
  it('turns on Object Lock with the requested mode and retention', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 365 } },
      },
      VersioningConfiguration: { Status: 'Enabled' },
    });
    // Only the archive is locked: query results and access logs must stay deletable.
    expect(
      Object.values(template.findResources('AWS::S3::Bucket')).filter((b) => b.Properties.ObjectLockEnabled),
    ).toHaveLength(1);
  });

  it('imports the named secret instead of creating one, and reads only it', () => {
    // Only the generated token-key secret: the API key's is imported.
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    // Each function on its own: both read the imported secret under the chosen token policy.
    for (const fn of [stack.archiver.fn, stack.snapshots.fn]) {
      expect(propsOf({ stack, template }, fn).Environment?.Variables).toMatchObject({
        TUNNEL_API_KEY_SECRET_ID: 'pinggy/api-key',
        TOKEN_VALUES: 'drop',
      });
    }
    expect(propsOf({ stack, template }, stack.archiver.fn).TracingConfig).toEqual({ Mode: 'Active' });
    const secret = iamStatements(template).filter(
      (s) =>
        s.actions.includes('secretsmanager:GetSecretValue') &&
        !JSON.stringify(s.resources).includes('TokenKey'),
    );
    // One grant per function (archiver, live-session snapshots), each on the imported secret alone.
    expect(secret).toHaveLength(2);
    for (const s of secret) {
      expect(s.actions).toEqual(['secretsmanager:GetSecretValue']);
      expect(s.resources).toHaveLength(1);
      expect(JSON.stringify(s.resources)).toMatch(/:secret:pinggy\/api-key-\?\?\?\?\?\?"/);
    }
  });

  it('subscribes the alarm e-mail and uses the given schedule', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    expect(propsOf({ stack, template }, stack.archiver.rule).ScheduleExpression).toBe('cron(15 */4 * * ? *)');
  });

  it('still leaves no unacknowledged cdk-nag finding, and no stale acknowledgement', () => {
    expect(nagViolations(app)).toEqual([]);
    expect(staleAcknowledgements(app)).toEqual([]);
  });
});
