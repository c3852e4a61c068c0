import type { RunSummary } from '../engine/runTypes.ts';

/** A day the run gave up on (and went on without); the engine's `RunSummary.failedDays` entries. */
export interface FailedDay {
  day: string;
  code: string;
  message: string;
  attempts: number;
  consecutiveRuns: number;
}

/** The failed days of a summary; empty for an engine that does not report them. */
export function failedDaysOf(s: RunSummary): FailedDay[] {
  const failed = (s as { failedDays?: unknown }).failedDays;
  return Array.isArray(failed) ? (failed as FailedDay[]) : [];
}

/** Days the deadline pushed to the next run (`RunSummary.deferredDays`); empty when not reported. */
export function deferredDaysOf(s: RunSummary): string[] {
  const deferred = (s as { deferredDays?: unknown }).deferredDays;
  return Array.isArray(deferred) ? deferred.filter((d): d is string => typeof d === 'string') : [];
}

/** Human summary of a run, one fact a line. */
export function formatSummary(s: RunSummary): string {
  const mb = (s.bytes / 1_048_576).toFixed(2);
  const failed = failedDaysOf(s);
  const lines = [
    `run ${s.runId} ${failed.length ? 'finished with failed days' : 'finished'} in ${(s.durationMs / 1000).toFixed(1)} s (today ${s.today})`,
    `  days scanned:   ${s.daysScanned} of ${s.daysPlanned} planned${s.daysDeferred ? ` (${s.daysDeferred} deferred to the next run: deadline)` : ''}`,
    `  records:        ${s.recordsNew} new, ${s.recordsSeen} seen`,
    `  files:          ${s.files} (${mb} MiB)`,
    `  quarantined:    ${s.quarantined}`,
    `  shortfalls:     ${s.shortfalls.length ? s.shortfalls.map((x) => `${x.day} (-${x.shortfall})`).join(', ') : 'none'}`,
    `  gaps:           ${s.gaps.length ? s.gaps.join(', ') : 'none'}`,
    `  at risk:        ${s.atRisk.length ? s.atRisk.join(', ') : 'none'}`,
    ...(deferredDaysOf(s).length ? [`  deferred days:  ${deferredDaysOf(s).join(', ')}`] : []),
    `  failed days:    ${failed.length ? '' : 'none'}`,
    ...failed.map(
      (f) =>
        `    ${f.day} [${f.code}] ${f.message} (${f.attempts} attempt(s), ${f.consecutiveRuns} run(s) in a row)`,
    ),
  ];
  return `${lines.join('\n').replace(/ +$/gm, '')}\n`;
}
