import { CreateJobCommand, DescribeJobCommand } from '@aws-sdk/client-s3-control';
import { describe, expect, it } from 'vitest';
import { formatReportRow, REPORT_FORMAT } from '../../lib/verify/checksumReportFormat.ts';
import { createS3ChecksumJobs } from '../../lib/verify/s3ChecksumJobs.ts';
import { MemoryObjectStore } from '../support/fakes/memoryObjectStore.ts';

const SHA = 'ab'.repeat(32);

function adapter(status: string) {
  const sent: unknown[] = [];
  const objects = new MemoryObjectStore();
  const jobs = createS3ChecksumJobs({
    client: {
      send: (async (command: unknown) => {
        sent.push(command);
        if (command instanceof CreateJobCommand) return { JobId: 'job-1' };
        if (command instanceof DescribeJobCommand) return { Job: { Status: status } };
        throw new Error('unexpected command');
      }) as never,
    },
    accountId: '123456789012',
    bucket: 'archive-bucket',
    rootPrefix: 'team/',
    roleArn: 'arn:aws:iam::123456789012:role/checksums',
    objects,
  });
  return { jobs, sent, objects };
}

describe('createS3ChecksumJobs', () => {
  it('starts one Compute checksum job (SHA-256, full object) over the objects S3 lists for the time range and prefix', async () => {
    const { jobs, sent } = adapter('Active');
    const createdAfter = new Date('2026-01-01T00:00:00.000Z');
    const createdBefore = new Date('2026-01-08T00:00:00.000Z');
    expect(await jobs.submit({ createdAfter, createdBefore, token: 'rotation-1-2' })).toBe('job-1');
    const input = (sent[0] as CreateJobCommand).input;
    expect(input).toMatchObject({
      AccountId: '123456789012',
      ConfirmationRequired: false,
      ClientRequestToken: 'rotation-1-2',
      RoleArn: 'arn:aws:iam::123456789012:role/checksums',
      Operation: { S3ComputeObjectChecksum: { ChecksumAlgorithm: 'SHA256', ChecksumType: 'FULL_OBJECT' } },
      ManifestGenerator: {
        S3JobManifestGenerator: {
          SourceBucket: 'arn:aws:s3:::archive-bucket',
          EnableManifestOutput: false,
          Filter: {
            CreatedAfter: createdAfter,
            CreatedBefore: createdBefore,
            KeyNameConstraint: { MatchAnyPrefix: ['team/'] },
          },
        },
      },
      Report: {
        Enabled: true,
        Bucket: 'arn:aws:s3:::archive-bucket',
        Prefix: 'team/checksum-jobs',
        Format: REPORT_FORMAT,
        ReportScope: 'AllTasks',
      },
    });
  });

  it('has no report while the job runs', async () => {
    const { jobs } = adapter('Active');
    expect(await jobs.report('job-1')).toBeUndefined();
  });

  it('reads a finished job’s report as S3 writes it: keys under the archive prefix read as the archive’s, URL-encoded, checksums in hex', async () => {
    const { jobs, objects } = adapter('Complete');
    const csv =
      formatReportRow('archive-bucket', { key: 'team/history/dt=2026-01-01/a b.parquet', sha256: SHA }) +
      formatReportRow('archive-bucket', {
        key: 'team/history/dt=2026-01-01/gone.parquet',
        error: 'NoSuchKey',
      });
    await objects.put('checksum-jobs/job-job-1/results/r1.csv', csv);
    await objects.put(
      'checksum-jobs/job-job-1/manifest.json',
      JSON.stringify({
        Format: REPORT_FORMAT,
        ReportCreationDate: '2026-01-08T01:00:00.000Z',
        Results: [
          {
            TaskExecutionStatus: 'succeeded',
            Bucket: 'archive-bucket',
            MD5Checksum: 'x',
            Key: 'team/checksum-jobs/job-job-1/results/r1.csv',
          },
        ],
        ReportSchema: 'Bucket, Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage',
      }),
    );
    const report = await jobs.report('job-1');
    expect(report?.status).toBe('complete');
    const rows = [];
    for await (const r of report?.rows ?? []) rows.push(r);
    expect(rows).toEqual([
      { key: 'history/dt=2026-01-01/a b.parquet', sha256: SHA },
      { key: 'history/dt=2026-01-01/gone.parquet', error: expect.stringContaining('NoSuchKey') },
    ]);
  });
});
