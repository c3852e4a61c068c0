import { describe, expect, it } from 'vitest';
import {
  acknowledgements,
  nagViolations,
  staleAcknowledgements,
  synthApp,
} from '../../devkit/infra/testApp.ts';

const { app } = synthApp();

describe('AwsSolutionsChecks on the TunnelArchiver app', () => {
  it('leaves no unacknowledged error or warning', () => {
    expect(nagViolations(app)).toEqual([]);
  });

  it('passes the policy validation CDK runs during synth (it throws on any finding)', () => {
    expect(() => app.synth({ force: true })).not.toThrow();
  });

  it('gives every acknowledgement a reason a reviewer can check', () => {
    const acks = acknowledgements(app);
    expect(acks.length).toBeGreaterThan(0);
    for (const a of acks) expect(a.reason.length, `${a.path} ${a.id}`).toBeGreaterThan(40);
  });

  it('acknowledges only findings that really occur (no stale suppressions)', () => {
    expect(staleAcknowledgements(app)).toEqual([]);
  });

  it('acknowledges exactly the expected rules', () => {
    expect(
      acknowledgements(app)
        .map((a) => a.id)
        .sort(),
    ).toEqual([
      // The fan-out's and the verify job's state machines: X-Ray.
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-IAM5[Resource::*]',
      // The archiver's checksum jobs: S3 Batch Operations CreateJob/DescribeJob take no resource.
      'AwsSolutions-IAM5[Resource::*]',
      // The checksum job role reads every object of the archive to compute its SHA-256.
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/*]',
      // _staging/ once: the archiver reads and removes every staged file (publishing, sweeping), writes none.
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/*]',
      // One staging area a writer: active/'s (the archiver's runs and the snapshot role), the fan-out's
      // bookkeeping, findings/' (the detect role and the snapshot role's live rules), history's and a cut
      // walk's (the archiver alone). The fan-out's map results and items, the state machine's.
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/active/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/active/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/fanout-results/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/fanout/*/items.json]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/fanout/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/findings/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/findings/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/history/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/_staging/walks/*]',
      // active/ four times: the archiver's role (every run snapshots the active list), the snapshot role,
      // the detect role (Athena reads it with the caller's credentials, read-only), and the verify job (reads).
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/active/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/active/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/active/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/active/*]',
      // checksum-jobs/: the job role writes the reports, the archiver reads them.
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/checksum-jobs/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/checksum-jobs/*]',
      // digests/: the archiver writes the chain, the verify job reads it.
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/digests/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/digests/*]',
      // findings/: the detect and snapshot roles write them, the archiver digests (and publishes) them, the
      // verify job reads them.
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/findings/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/findings/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/findings/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/findings/*]',
      // history/: the archiver writes it, the detect role reads it (Athena), the verify job reads it.
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/history/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/history/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/history/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/quarantine/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/quarantine/*]',
      // The verify job's own plan and item results; its state machine's items and map results.
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/verify-jobs/*/items.json]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/verify-jobs/*]',
      'AwsSolutions-IAM5[Resource::<BucketsArchiveCE3432CC.Arn>/verify-jobs/map-results/*]',
      // Athena's query results of the detect role, under results/ of the results bucket.
      'AwsSolutions-IAM5[Resource::<BucketsAthenaResultsDAB4D203.Arn>/results/*]',
      // The fan-out's state machine (with the four below): its function's versions, the map's items and
      // results, its child executions and map runs.
      'AwsSolutions-IAM5[Resource::<FanoutFunction65504326.Arn>:*]',
      // The verify job's state machine likewise (with the three below each the fan-out's).
      'AwsSolutions-IAM5[Resource::<VerifyJobFunctionB35AE47B.Arn>:*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"FanoutStateMachine6169B15B"}]}]}/*:*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"FanoutStateMachine6169B15B"}]}]}:*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"VerifyJobStateMachineB8D63D7F"}]}]}/*:*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"VerifyJobStateMachineB8D63D7F"}]}]}:*]',
      'AwsSolutions-SMG4',
      'AwsSolutions-SMG4',
      'AwsSolutions-SQS3',
    ]);
  });
});
