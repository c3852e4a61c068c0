import { describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../devkit/awsCallLog.ts';
import { accessesOf, resourceFor, serviceOf } from './callAccesses.ts';
import type { TemplatePolicies } from './roleAccess.ts';

/** A template with no SNS topics, Glue tables or workgroups: enough for calls that name none. */
const noResources = { resources: () => [] } as unknown as TemplatePolicies;
const call = (client: string, command: string, input: Record<string, unknown>): RecordedCall => ({
  client,
  command,
  input,
});
const ROLE = 'arn:aws:iam::123456789012:role/BatchOperationsRole';

describe('accessesOf', () => {
  it.each([
    [
      'an S3 Batch Operations job: its action on no resource, and the role it passes to the service',
      call('S3ControlClient', 'CreateJobCommand', { AccountId: '123456789012', RoleArn: ROLE }),
      [
        {
          action: 'iam:PassRole',
          resource: ROLE,
          context: { 'iam:PassedToService': 'batchoperations.s3.amazonaws.com' },
        },
        { action: 's3:CreateJob', resource: '*' },
      ],
    ],
    [
      'a job described by its id, on the ARN pattern iam-data gives',
      call('S3ControlClient', 'DescribeJobCommand', { AccountId: '123456789012', JobId: 'j-1' }),
      [{ action: 's3:DescribeJob', resource: 'arn:aws:s3:us-east-1:123456789012:job/j-1' }],
    ],
    [
      'a role assumed with an external id',
      call('STSClient', 'AssumeRoleCommand', { RoleArn: ROLE, ExternalId: 'ext-1' }),
      [{ action: 'sts:AssumeRole', resource: ROLE, context: { 'sts:ExternalId': 'ext-1' } }],
    ],
    [
      'a state machine started by a client named unlike its IAM prefix',
      call('SFNClient', 'StartExecutionCommand', {
        stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:m',
      }),
      [{ action: 'states:StartExecution', resource: 'arn:aws:states:us-east-1:123456789012:stateMachine:m' }],
    ],
  ])('%s', async (_what, recorded, expected) => {
    const got = await accessesOf(recorded, new Map(), noResources);
    expect(got.map(({ call: _c, ...a }) => a)).toEqual(expected);
  });

  it('names the test resources as the template names them', async () => {
    const got = await accessesOf(
      call('S3Client', 'GetObjectCommand', { Bucket: 'local-bucket', Key: 'history/a.parquet' }),
      new Map([['local-bucket', 'ta-archive']]),
      noResources,
    );
    expect(got).toEqual([
      {
        action: 's3:GetObject',
        resource: 'arn:aws:s3:::ta-archive/history/a.parquet',
        call: expect.any(String),
      },
    ]);
  });

  it('refuses a client whose IAM service it cannot tell', async () => {
    await expect(serviceOf('NoSuchServiceClient')).rejects.toThrow('NoSuchServiceClient');
  });
});

describe('resourceFor', () => {
  it('fills what the input does not name with a stand-in', async () => {
    expect(await resourceFor('s3', 'DescribeJob', {})).toBe('arn:aws:s3:us-east-1:123456789012:job/jobid-1');
  });
});
