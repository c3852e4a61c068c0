import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../devkit/runCli.ts';
import { type S3rverHandle, startS3rver } from '../../devkit/startS3rver.ts';
import { uploadFolder } from '../../devkit/uploadFolder.ts';
import { COMMANDS } from '../../lib/cli/commands.ts';
import { EXIT_VERIFY_GAP } from '../../lib/cli/exitCodes.ts';
import { ARCHIVE_DAYS, ARCHIVE_NOW, emulatorArchive } from '../ocsf/emulatorArchive.ts';
import { type ReadOnlyS3Front, startReadOnlyS3Front } from '../support/readOnlyS3Front.ts';
import { tempDirPer } from '../support/tempDirPer.ts';

/**
 * An auditor's look at an S3 archive: read-only credentials (a front that refuses every write) and no state
 * table (no ARCHIVE_STATE). Each command that says it only reads runs as the docs write it, `--dest s3://…`.
 */
const tmp = tempDirPer('ta-readonly-s3-');
let s3: S3rverHandle;
let front: ReadOnlyS3Front;

/** Every file of a local archive but its private keys and its state, uploaded as a team's bucket holds it. */

const auditorEnv = (): Record<string, string> => ({
  TMPDIR: tmp.dir,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_ENDPOINT_URL_S3: front.endpoint,
});

beforeAll(async () => {
  const archive = await emulatorArchive(tmp.dir);
  s3 = await startS3rver('audited-archive');
  expect(
    await uploadFolder(
      s3.client,
      archive,
      { bucket: s3.bucket },
      (key) => !key.startsWith('.keys/') && !key.startsWith('.state/') && key !== 'report.html',
    ),
  ).toBeGreaterThan(0);
  front = await startReadOnlyS3Front(s3);
}, 240_000);

afterAll(async () => {
  await Promise.allSettled([front?.close(), s3?.close()]);
});

const dest = () => `s3://${s3.bucket}/`;

describe('the read-only commands on an S3 archive with read-only credentials and no state table', () => {
  it('are the commands the CLI marks as reading only', () => {
    const readsOnly = Object.entries(COMMANDS)
      .filter(([, c]) => c.readsOnly)
      .map(([name]) => name);
    expect(readsOnly).toEqual(expect.arrayContaining(['status', 'verify', 'report', 'export']));
    expect(readsOnly).not.toContain('run');
  });

  it('verify exits 0 on the clean archive, sending no write', async () => {
    const before = front.requests.length;
    const r = await runCli(['verify', '--dest', dest(), '--now', ARCHIVE_NOW], auditorEnv());
    expect(r.stderr).not.toMatch(/ARCHIVE_STATE|ARCHIVE_KEYS_DIR/);
    expect({ code: r.code, out: r.stdout.slice(0, 400) }).toMatchObject({ code: 0 });
    expect(r.stdout).toContain(`Archive ${dest()}`);
    expect(front.requests.length).toBeGreaterThan(before);
    expect(front.refused).toEqual([]);
  });

  it('status prints the days the digests record, sending no write', async () => {
    const r = await runCli(['status', '--dest', dest(), '--now', ARCHIVE_NOW, '--json'], auditorEnv());
    expect(r.stderr).not.toMatch(/ARCHIVE_STATE|error/i);
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout) as {
      source: string;
      days: { day: string; files: number; scans: number }[];
    };
    expect(status.source).toBe('digests');
    // Each day the run scanned, with the data files the bucket holds under its partition.
    for (const day of ARCHIVE_DAYS) {
      const listed = await s3.client.send(
        new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `history/dt=${day}/` }),
      );
      const files = (listed.Contents ?? []).filter((o) => o.Key?.endsWith('.parquet')).length;
      expect(
        status.days.find((d) => d.day === day),
        `${day}: ${r.stdout.slice(0, 1500)}`,
      ).toMatchObject({
        scans: 1,
        files,
      });
    }
    expect(status.days.reduce((n, d) => n + d.files, 0)).toBeGreaterThan(0);
    expect(front.refused).toEqual([]);
  });

  it('report writes its page locally, sending no write', async () => {
    const out = join(tmp.dir, 'audit-report.html');
    const r = await runCli(['report', '--dest', dest(), '--now', ARCHIVE_NOW, '--out', out], auditorEnv());
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('<html');
    expect(front.refused).toEqual([]);
  });

  it('export --ocsf names the archive with --dest, as every command does, sending no write', async () => {
    const [since, until] = ARCHIVE_DAYS;
    const out = join(tmp.dir, 'ocsf');
    const args = ['export', '--ocsf', '--class', 'sessions', '--since', since, '--until', until];
    const r = await runCli([...args, '--out', out, '--dest', dest()], auditorEnv());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/[1-9]\d* OCSF sessions events/);
    expect(front.refused).toEqual([]);
    const old = await runCli([...args, '--out', out, '--archive', dest()], auditorEnv());
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('--archive');
  });

  it('verify exits 5 once a history file is changed behind the digests', async () => {
    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'history/' }));
    const key = listed.Contents?.find((o) => o.Key?.endsWith('.parquet'))?.Key;
    if (key === undefined) throw new Error('no history file in the uploaded archive');
    const body = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    const bytes = Buffer.from(await body.Body!.transformToByteArray());
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: bytes }));
    const r = await runCli(['verify', '--dest', dest(), '--now', ARCHIVE_NOW], auditorEnv());
    expect(r.code, r.stderr).toBe(EXIT_VERIFY_GAP);
    expect(r.stdout).toContain(key);
    expect(front.refused).toEqual([]);
  });
});
