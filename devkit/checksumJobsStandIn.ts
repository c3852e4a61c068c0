import { createHash } from 'node:crypto';
import { sha256OfSource } from '../lib/archive/digest/describeDataFile.ts';
import { objectSource } from '../lib/archive/store/byteSource.ts';
import type { ObjectStore } from '../lib/archive/store/objectStore.ts';
import {
  CHECKSUM_REPORTS_PREFIX,
  type ChecksumJobRequest,
  type ChecksumJobs,
  type ChecksumReport,
  type ChecksumRow,
} from '../lib/integrity/verify/checksumJobs.ts';
import {
  parseReportCsv,
  parseReportManifest,
  REPORT_FORMAT,
  type ReportManifest,
} from '../lib/integrity/verify/checksumReportFormat.ts';

const PREFIX = CHECKSUM_REPORTS_PREFIX;
const BUCKET = 'stand-in';

/**
 * S3 Batch Operations' Compute checksum, run locally against a real store: `submit` records the job in
 * the store; `runPending()` (what S3 does between weeks) lists the store, hashes every object written in
 * the job's range and writes the completion report in AWS's format (`manifest.json` and a CSV of results),
 * which `report` reads as the S3 adapter does. The state lives in the store, so separate processes share it.
 */
export class ChecksumJobsStandIn implements ChecksumJobs {
  constructor(private readonly objects: ObjectStore) {}

  async submit(request: ChecksumJobRequest): Promise<string> {
    const id = createHash('sha256').update(request.token).digest('hex').slice(0, 32);
    await this.objects.putIfAbsent(
      `${PREFIX}job-${id}/request.json`,
      JSON.stringify({
        createdAfter: request.createdAfter?.toISOString(),
        createdBefore: request.createdBefore.toISOString(),
      }),
    );
    return id;
  }

  async report(jobId: string): Promise<ChecksumReport | undefined> {
    const manifestBytes = await this.objects.get(`${PREFIX}job-${jobId}/manifest.json`);
    if (!manifestBytes) return undefined;
    const manifest = parseReportManifest(manifestBytes);
    const objects = this.objects;
    async function* rows(): AsyncGenerator<ChecksumRow> {
      for (const r of manifest.Results) {
        const csv = await objects.get(r.Key);
        if (csv) yield* parseReportCsv(new TextDecoder().decode(csv));
      }
    }
    return { status: 'complete', rows: rows() };
  }

  /** Runs every job without a report yet; returns their ids. */
  async runPending(): Promise<string[]> {
    const jobs: string[] = [];
    const done = new Set<string>();
    for await (const o of this.objects.list(PREFIX)) {
      const m = /^checksum-jobs\/job-([0-9a-f]+)\/(request|manifest)\.json$/.exec(o.key);
      if (m?.[2] === 'request') jobs.push(m[1] as string);
      if (m?.[2] === 'manifest') done.add(m[1] as string);
    }
    const run = jobs.filter((id) => !done.has(id));
    for (const id of run) await this.#run(id);
    return run;
  }

  async #run(id: string): Promise<void> {
    const request = JSON.parse(
      new TextDecoder().decode((await this.objects.get(`${PREFIX}job-${id}/request.json`)) as Uint8Array),
    ) as { createdAfter?: string; createdBefore: string };
    const after = request.createdAfter ? Date.parse(request.createdAfter) : Number.NEGATIVE_INFINITY;
    const before = Date.parse(request.createdBefore);
    let csv = '';
    for await (const o of this.objects.list('')) {
      const at = o.modifiedAt?.getTime();
      if (at === undefined || at <= after || at >= before || o.key.startsWith(PREFIX)) continue;
      const sha256 = await sha256OfSource(objectSource(this.objects, o.key, o.size));
      csv += formatReportRow(BUCKET, { key: o.key, sha256 });
    }
    const resultKey = `${PREFIX}job-${id}/results/${createHash('sha1').update(csv).digest('hex')}.csv`;
    await this.objects.put(resultKey, csv);
    const manifest: ReportManifest = {
      Format: REPORT_FORMAT,
      Results: [{ TaskExecutionStatus: 'succeeded', Bucket: BUCKET, Key: resultKey }],
    };
    await this.objects.put(`${PREFIX}job-${id}/manifest.json`, JSON.stringify(manifest));
  }
}

/**
 * One report row in the shape S3 writes it (test/verify/fixtures/s3-batch-report/README.md says where
 * that shape is documented): bucket, URL-encoded key, version, status, HTTP status, error code, message.
 */
function formatReportRow(bucket: string, row: ChecksumRow): string {
  const key = encodeURIComponent(row.key).replace(/%2F/g, '/');
  const message = row.sha256
    ? JSON.stringify({
        checksum_base64: Buffer.from(row.sha256, 'hex').toString('base64'),
        checksum_hex: row.sha256,
        checksumAlgorithm: 'SHA256',
        checksumType: 'FULL_OBJECT',
      })
    : (row.error ?? '');
  const fields = row.sha256
    ? [bucket, key, '', 'succeeded', '200', '', message]
    : [bucket, key, '', 'failed', '404', 'NoSuchKey', message];
  return `${fields.map(csvField).join(',')}\n`;
}

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
