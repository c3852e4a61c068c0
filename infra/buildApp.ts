import { type App, Aspects, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ReservedConcurrency } from './reservedConcurrency.ts';
import { readStackSettings } from './stackSettings.ts';
import { TunnelArchiverStack } from './tunnelArchiverStack.ts';

export const STACK_NAME = 'TunnelArchiver';

/**
 * Adds the stack (settings from CDK context) and the cdk-nag AwsSolutions checks to `app`. Shared by
 * the CLI entry and the tests, so both synthesize exactly the same thing.
 */
export function buildApp(app: App): TunnelArchiverStack {
  const settings = readStackSettings((key) => app.node.tryGetContext(key));
  const stack = new TunnelArchiverStack(app, STACK_NAME, {
    settings,
    description:
      'tunnel-archiver: Pinggy tunnel-session history archived to Parquet on S3, queryable in Athena',
  });
  Aspects.of(stack).add(new ReservedConcurrency(settings.reservedConcurrency));
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
