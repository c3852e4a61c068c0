import type { VerifyJobResult } from './verifyJobTypes.ts';
import type { VerifyProgress } from './verifyProgress.ts';

/** One line on where the weekly verify stands, for `status` and the report (the same words in both). */
export function describeVerified(progress: VerifyProgress | undefined): string {
  if (!progress) return 'never (the first weekly verify checks the whole archive)';
  const { at, head, rotation, fullAt, checksums } = progress;
  const judged = (
    v: { checkedAt: string; after?: string; before: string; objects: number; ok: boolean } | undefined,
  ) =>
    v
      ? `${v.objects} object(s) written ${v.after ?? 'ever'} to ${v.before}, judged ${v.checkedAt}: ${v.ok ? 'intact' : 'FAILED'}`
      : 'none yet';
  const store = checksums
    ? [
        `store checksum jobs: rotation at week of ${new Date(checksums.rotation.cursor * 7 * 86_400_000).toISOString().slice(0, 10)}, every file again within ${checksums.rotation.periodWeeks} weeks; ${checksums.jobs.length} running`,
        `last rotation job ${judged(checksums.lastChecked?.rotation)}`,
        `last new-work job ${judged(checksums.lastChecked?.new)}`,
      ]
    : [
        `rotation at digest ${rotation.nextSeq}, started ${rotation.startedAt}: every file again within ${rotation.periodWeeks} weeks`,
      ];
  return [
    `${at}, up to digest ${head.seq} (${head.key}, SHA-256 ${head.sha256.slice(0, 12)}…)`,
    ...store,
    `last full check ${fullAt ?? 'never'}`,
  ].join('; ');
}

/** One line on the last full verify job (its merged result, `reports/full-verify.json`), for `status`. */
export function describeFullVerify(result: VerifyJobResult | undefined): string {
  if (!result) return 'none (start one with the stack output FullVerifyCommand)';
  const verdict = result.ok ? 'intact' : `FAILED (${result.failures.length} failure(s))`;
  const head = result.head ? `up to digest ${result.head.seq}` : 'an empty chain';
  const awaiting =
    result.awaitingDigest.length > 0
      ? `; ${result.awaitingDigest.length} file(s) written after the newest digest, for the next check`
      : '';
  return `${result.jobId}, ${result.checkedAt}, ${head}: ${result.files} file(s) in ${result.items - 1} folder(s) and the chain, ${verdict}${awaiting}`;
}
