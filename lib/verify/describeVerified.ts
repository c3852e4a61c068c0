import type { VerifyProgress } from '../state/stateStore.ts';

/** One line on where the weekly verify stands, for `status` and the report (the same words in both). */
export function describeVerified(progress: VerifyProgress | undefined): string {
  if (!progress) return 'never (the first weekly verify checks the whole archive)';
  const { at, head, rotation, fullAt } = progress;
  return [
    `${at}, up to digest ${head.seq} (${head.key}, SHA-256 ${head.sha256.slice(0, 12)}…)`,
    `rotation at digest ${rotation.nextSeq}, started ${rotation.startedAt}: every file again within ${rotation.periodWeeks} weeks`,
    `last full check ${fullAt ?? 'never'}`,
  ].join('; ');
}
