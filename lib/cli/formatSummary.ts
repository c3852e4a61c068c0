import type { DayResult, FailedDay, RunSummary } from '../archive/index.ts';

/** The failed days of a summary (the run went on without them: exit 7). */
export function failedDaysOf(s: RunSummary): FailedDay[] {
  return s.failedDays;
}

/** Days the deadline pushed to the next run. */
export function deferredDaysOf(s: RunSummary): string[] {
  return s.deferredDays;
}

/**
 * One line for a day walk that spans runs: where this run went on, the pages it fetched, and either the
 * proof it reached or, when cut again, the pages left by the day's totals, the evidence still needed and
 * the runs that takes at this run's pace.
 */
export function walkLine(d: DayResult): string {
  const went = d.resumedAt ? `went on at page ${d.resumedAt.page} of pass ${d.resumedAt.pass}, ` : '';
  const head = `  day walk:       ${d.day}: ${went}${d.pagesThisRun} page(s) this run (${d.pages} in all)`;
  if (!d.outlook)
    return `${head}, ${d.complete ? 'proven complete' : `ended short by ${d.shortfall} row(s)`}`;
  const o = d.outlook;
  const runs =
    o.runsExpected === undefined
      ? 'runs to finish unknown (no page this run)'
      : `about ${o.runsExpected} more run(s)`;
  return `${head}, cut by the deadline; ${o.pagesLeft} page(s) left by its totals; still needed: ${o.evidence.join(', ')}; ${runs}`;
}

/** Human summary of a run, one fact a line. */
export function formatSummary(s: RunSummary): string {
  const mb = (s.bytes / 1_048_576).toFixed(2);
  const failed = failedDaysOf(s);
  const lines = [
    `run ${s.runId} ${failed.length ? 'finished with failed days' : 'finished'} in ${(s.durationMs / 1000).toFixed(1)} s (today ${s.today})`,
    `  days scanned:   ${s.daysScanned} of ${s.daysPlanned} planned to their end${s.daysDeferred ? `; ${s.daysDeferred} left to the next run by the deadline` : ''}`,
    ...s.days.filter((d) => d.resumedAt || d.outlook).map(walkLine),
    `  records:        ${s.recordsNew} new, ${s.recordsSeen} seen`,
    `  files:          ${s.files} (${mb} MiB)`,
    `  quarantined:    ${s.quarantined}`,
    `  shortfalls:     ${s.shortfalls.length ? s.shortfalls.map((x) => `${x.day} (-${x.shortfall})`).join(', ') : 'none'}`,
    `  gaps:           ${s.gaps.length ? s.gaps.join(', ') : 'none'}`,
    `  at risk:        ${s.atRisk.length ? s.atRisk.join(', ') : 'none'}`,
    ...(deferredDaysOf(s).length ? [`  deferred days:  ${deferredDaysOf(s).join(', ')}`] : []),
    `  failed days:    ${failed.length ? '' : 'none'}`,
    ...failed.map((f) => `    ${f.day} [${f.code}] ${f.message} (failed on ${f.attempts} run(s) in a row)`),
    ...(s.brokenPartitions.length
      ? [`  blocked:        ${s.brokenPartitions.join(', ')} (see tunnel-archiver repair --help)`]
      : []),
    ...(s.active
      ? [
          s.active.error
            ? `  live sessions:  snapshot failed: ${s.active.error}`
            : `  live sessions:  ${s.active.listed} open, ${s.active.rows} change row(s)${s.active.longSessions ? `, ${s.active.longSessions} open longer than history can show` : ''}`,
        ]
      : []),
    ...(s.digest
      ? [
          `  digest:         ${s.digest.key} (${s.digest.files} file(s))`,
          `  chain head:     ${s.digest.seq}:${s.digest.sha256} (an auditor checks it with verify --expect-head)`,
        ]
      : []),
    ...(s.rebuilt ? [`  state rebuilt:  ${s.rebuilt.files} file(s) from the archive`] : []),
    ...(s.foreignFiles
      ? [
          `  foreign files:  ${s.foreignFiles.join(', ')} (never committed by the archiver: not digested; remove them)`,
        ]
      : []),
  ];
  return `${lines.join('\n').replace(/ +$/gm, '')}\n`;
}
