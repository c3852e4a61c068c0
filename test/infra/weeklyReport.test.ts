import { describe, expect, it } from 'vitest';
import { iamStatements, propsOf, resourceSuffix, synthApp } from '../../devkit/infra/testApp.ts';
import { REPORT_VERSIONS_KEPT } from '../../infra/constructs/archiveBuckets.ts';
import { WRITE_ONCE_PREFIXES } from '../../infra/constructs/archiveIntegrity.ts';
import { archiveKeys } from '../../lib/archive/commit/archiveKeys.ts';

const { stack, template } = synthApp();
const bucketRef = stack.getLogicalId(stack.buckets.archive.node.defaultChild as never);

/** A CloudFormation string (`Fn::Join` of literals and `Ref`s) as text, with a Ref shown as `<LogicalId>`. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(text).join(join[0]);
  const ref = (value as { Ref?: string }).Ref;
  return ref === undefined ? JSON.stringify(value) : `<${ref}>`;
}

const openCommand = `aws s3 presign s3://<${bucketRef}>/reports/index.html --expires-in 3600`;

describe('the weekly report in AWS', () => {
  it('outputs the command that prints a presigned URL of reports/index.html', () => {
    expect(text(template.toJSON().Outputs.OpenReportCommand.Value)).toBe(openCommand);
  });

  it("names that command in the verify alarm's message", () => {
    const alarm = propsOf({ stack, template }, stack.integrity.verifyAlarm);
    expect(text(alarm.AlarmDescription)).toContain(openCommand);
  });

  it('lets the function replace reports/index.html, outside the write-once prefixes', () => {
    for (const key of [archiveKeys.report, archiveKeys.lastVerify])
      expect(WRITE_ONCE_PREFIXES.some((p) => key.startsWith(p))).toBe(false);
    const grants = iamStatements(template).filter(
      (s) => s.effect === 'Allow' && s.actions.includes('s3:PutObject'),
    );
    const granted = grants.flatMap((g) => g.resources.map(resourceSuffix));
    expect(granted).toContain(`/${archiveKeys.report}`);
    expect(granted).toContain(`/${archiveKeys.lastVerify}`);
    const bucketPolicy = Object.values(template.findResources('AWS::S3::BucketPolicy'))
      .flatMap(
        (p) =>
          (p as { Properties: { PolicyDocument: { Statement: { Sid?: string; Resource: unknown[] }[] } } })
            .Properties.PolicyDocument.Statement,
      )
      .find((s) => s.Sid === 'DenyOverwriteOfPublishedObjects');
    const denied = (bucketPolicy?.Resource ?? []).map(resourceSuffix);
    expect(denied.length).toBe(WRITE_ONCE_PREFIXES.length);
    expect(denied.some((r) => r.startsWith('/reports'))).toBe(false);
  });

  it('keeps the last versions of the report and lets older ones expire', () => {
    const rules = template.toJSON().Resources[bucketRef].Properties.LifecycleConfiguration.Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({
        Prefix: archiveKeys.reportsPrefix,
        NoncurrentVersionExpiration: { NoncurrentDays: 1, NewerNoncurrentVersions: REPORT_VERSIONS_KEPT - 1 },
        Status: 'Enabled',
      }),
    );
  });
});
