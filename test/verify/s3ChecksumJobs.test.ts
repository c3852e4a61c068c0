import { readFile } from 'node:fs/promises';
import { CreateJobCommand, DescribeJobCommand } from '@aws-sdk/client-s3-control';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import type { ChecksumReport, ChecksumRow } from '../../lib/integrity/verify/checksumJobs.ts';
import { REPORT_FORMAT } from '../../lib/integrity/verify/checksumReportFormat.ts';
import { createS3ChecksumJobs } from '../../lib/integrity/verify/s3ChecksumJobs.ts';

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

  it('reads a finished job’s report as S3 writes it: both result files, keys URL-encoded and under the archive prefix, checksums in hex', async () => {
    const { jobs, objects } = adapter('Complete');
    await putReport(objects, 'complete-manifest.json');
    const report = await jobs.report(JOB);
    expect(report?.status).toBe('complete');
    expect(await rowsOf(report)).toEqual([...SUCCEEDED, ...FAILED]);
  });

  it.each(['Failed', 'Cancelled'])(
    'reads the report of a job that ended %s as failed, with the rows of the tasks it ran',
    async (status) => {
      const { jobs, objects } = adapter(status);
      await putReport(objects, 'complete-manifest.json');
      const report = await jobs.report(JOB);
      expect(report?.status).toBe('failed');
      expect(await rowsOf(report)).toEqual([...SUCCEEDED, ...FAILED]);
    },
  );

  it.each(['Failed', 'Cancelled'])(
    'gives a job that ended %s before any task ran (no report) as failed, with no rows',
    async (status) => {
      const { jobs } = adapter(status);
      const report = await jobs.report(JOB);
      expect(report?.status).toBe('failed');
      expect(await rowsOf(report)).toEqual([]);
    },
  );
});

/** The job of the fixture report (test/verify/fixtures/s3-batch-report/, in the shape AWS documents). */
const JOB = '5e0c1f2a-7b3d-4c8e-9a61-2f4d8b7c9e10';
const FIXTURES = new URL('./fixtures/s3-batch-report/', import.meta.url);

/** What the fixture's succeeded.csv says, read as the archive's keys. */
const SUCCEEDED = [
  {
    key: 'history/dt=2026-01-01/a b.parquet',
    sha256: '229a96972c9bccad6f74a6947874ff6d06e743ff5bdaa5436ffa69967bd82cb1',
  },
  {
    key: 'history/dt=2026-01-01/c+d.parquet',
    sha256: 'b1ddaf98fc9359352624ae81fffbee740be40df96c27c0484cc9ece0a9157b31',
  },
  {
    key: 'digests/0000000007.json',
    sha256: 'bba64cee3ed1c3821d4145a44c0ffee0e8e603134d0fef3e867d3efb78d2673d',
  },
];
/** What its failed.csv says: each error names the S3 error code and the HTTP status. */
const FAILED = [
  { key: 'history/dt=2026-01-02/gone.parquet', error: '404 NoSuchKey The specified key does not exist.' },
  {
    key: 'history/dt=2026-01-02/locked.parquet',
    error: '403 AccessDenied Access Denied: {"reason":"explicit deny", "by":"bucket policy"}',
  },
];

/** Puts the fixture report where S3 writes it: the manifest, and each result file at the key it names. */
async function putReport(objects: MemoryObjectStore, manifestFile: string): Promise<void> {
  const manifest = await readFile(new URL(manifestFile, FIXTURES));
  await objects.put(`checksum-jobs/job-${JOB}/manifest.json`, manifest);
  const { Results } = JSON.parse(manifest.toString('utf8')) as { Results: { Key: string }[] };
  for (const [i, r] of Results.entries()) {
    const file = i === 0 ? 'succeeded.csv' : 'failed.csv';
    // The store is the archive's (under `team/`); the manifest names the bucket's keys.
    expect(r.Key.startsWith('team/')).toBe(true);
    await objects.put(r.Key.slice('team/'.length), await readFile(new URL(file, FIXTURES)));
  }
}

async function rowsOf(report: ChecksumReport | undefined): Promise<ChecksumRow[]> {
  const rows: ChecksumRow[] = [];
  for await (const r of report?.rows ?? []) rows.push(r);
  return rows;
}
