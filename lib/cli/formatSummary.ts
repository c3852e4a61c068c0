import type { RunSummary } from '../engine/runTypes.ts';

/** Human summary of a run, one fact a line. */
export function formatSummary(s: RunSummary): string {
  const mb = (s.bytes / 1_048_576).toFixed(2);
  const lines = [
    `run ${s.runId} finished in ${(s.durationMs / 1000).toFixed(1)} s (today ${s.today})`,
    `  days scanned:   ${s.daysScanned} of ${s.daysPlanned} planned${s.daysDeferred ? ` (${s.daysDeferred} deferred to the next run: deadline)` : ''}`,
    `  records:        ${s.recordsNew} new, ${s.recordsSeen} seen`,
    `  files:          ${s.files} (${mb} MiB)`,
    `  quarantined:    ${s.quarantined}`,
    `  shortfalls:     ${s.shortfalls.length ? s.shortfalls.map((x) => `${x.day} (-${x.shortfall})`).join(', ') : 'none'}`,
    `  gaps:           ${s.gaps.length ? s.gaps.join(', ') : 'none'}`,
    `  at risk:        ${s.atRisk.length ? s.atRisk.join(', ') : 'none'}`,
  ];
  return `${lines.join('\n')}\n`;
}
