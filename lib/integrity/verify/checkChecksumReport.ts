import { type ObjectStore, readDigestChain } from '../../archive/index.ts';
import { addObject, emptyFingerprint, sameFingerprint } from './checksumFingerprint.ts';
import type { ChecksumJobs } from './checksumJobs.ts';
import { chainCovers } from './checksumRotation.ts';
import type { ChecksumProgress, ChecksumVerdict } from './verifyProgress.ts';
import type { VerifyFailure } from './verifyTypes.ts';

/**
 * Judges every submitted checksum job whose report is in: the report's objects under the chain's prefixes,
 * summed into a fingerprint, must equal what the digests say was written in the job's weeks. A mismatch
 * (a changed byte, a planted or replaced object, one gone) is then named object by object against the
 * whole chain, which only a failure pays for. Runs when a report arrives, apart from the weekly verify,
 * whose own work stays flat; the verdicts wait in the progress for the next weekly verify to report.
 */
export async function checkChecksumReports(
  deps: { objects: ObjectStore; jobs: ChecksumJobs },
  progress: ChecksumProgress,
  now: Date,
): Promise<{ next: ChecksumProgress; judged: ChecksumVerdict[] }> {
  const judged: ChecksumVerdict[] = [];
  const waiting = [];
  for (const job of progress.jobs) {
    const report = await deps.jobs.report(job.id);
    if (!report) {
      waiting.push(job);
      continue;
    }
    let seen = emptyFingerprint;
    const failed: string[] = [];
    for await (const row of report.rows) {
      if (!chainCovers(row.key)) continue;
      if (row.sha256 === undefined) failed.push(`${row.key}: ${row.error ?? 'no checksum'}`);
      else seen = addObject(seen, row.key, row.sha256);
    }
    const failures: VerifyFailure[] = [];
    const range = `written ${job.after ?? 'ever'} to ${job.before}`;
    if (report.status === 'failed') {
      failures.push({
        kind: 'missing-file',
        message: `checksum job ${job.id} (${range}) failed: its objects are unchecked`,
      });
    }
    for (const f of failed) failures.push({ kind: 'missing-file', message: `checksum job ${job.id}: ${f}` });
    if (!sameFingerprint(seen, job.expected)) {
      failures.push(...(await nameMismatches(deps, progress, job.id)));
      failures.push({
        kind: 'hash',
        message: `the store holds ${seen.count} object(s) ${range} under the chain's prefixes, the digests ${job.expected.count}, and their SHA-256 fingerprints differ: objects were changed, planted or removed`,
      });
    }
    judged.push({
      id: job.id,
      kind: job.kind,
      checkedAt: now.toISOString(),
      ...(job.after ? { after: job.after } : {}),
      before: job.before,
      objects: seen.count,
      ok: failures.length === 0,
      failures,
    });
  }
  const lastChecked = { ...progress.lastChecked };
  for (const { failures: _f, ...summary } of judged) lastChecked[summary.kind] = summary;
  return {
    next: { ...progress, jobs: waiting, verdicts: [...progress.verdicts, ...judged], lastChecked },
    judged,
  };
}

/** The failure path: each reported object against the whole chain (and the key files' first hashes). */
async function nameMismatches(
  deps: { objects: ObjectStore; jobs: ChecksumJobs },
  progress: ChecksumProgress,
  jobId: string,
): Promise<VerifyFailure[]> {
  const chain = await readDigestChain(deps.objects);
  const expected = new Map<string, string>(Object.entries(progress.keyFiles));
  for (const e of chain.entries) {
    expected.set(e.key, e.sha256);
    for (const f of e.digest?.files ?? []) expected.set(f.key, f.sha256);
  }
  const failures: VerifyFailure[] = [];
  const report = await deps.jobs.report(jobId);
  for await (const row of report?.rows ?? []) {
    if (!chainCovers(row.key) || row.sha256 === undefined) continue;
    const want = expected.get(row.key);
    if (want === undefined) {
      failures.push({
        kind: 'unlisted',
        object: row.key,
        message: `${row.key} is not listed in any digest: planted, or a stray under the chain's prefixes`,
      });
    } else if (want !== row.sha256) {
      failures.push({
        kind: 'hash',
        object: row.key,
        message: `${row.key} has SHA-256 ${row.sha256} in the store's checksum job, but the chain lists ${want}: its content changed`,
      });
    }
  }
  return failures;
}
