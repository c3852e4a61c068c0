import { describeFullVerify, describeVerified } from '../verify/describeVerified.ts';
import { ageOf, esc, figure, table } from './html.ts';
import { renderCalendar } from './renderCalendar.ts';
import { liveChart, sessionsByModeChart } from './renderCharts.ts';
import type { ReportModel } from './reportModel.ts';
import { REPORT_CSS } from './reportStyles.ts';

const MAX_FAILURES_SHOWN = 50;

function summary(m: ReportModel): string {
  const s = m.status;
  const v = m.verify;
  const box = (label: string, value: string) => `<div>${label}<b>${value}</b></div>`;
  return `<div class="summary">${[
    box('days in the calendar', String(m.calendar.length)),
    box('gaps', s ? figure('status.gaps', s.gaps.length) : 'no state'),
    box('failing days', s ? figure('status.failed', s.failed.length) : 'no state'),
    box(
      'verify',
      v
        ? `<span class="${v.ok ? 'ok' : 'bad'}" data-figure="verify.ok">${v.ok ? 'OK' : 'FAILED'}</span>`
        : 'not run',
    ),
    box('distinct records', v ? figure('verify.records', v.records) : 'not verified'),
    box('live sessions', s ? figure('status.live.open', s.live.open) : 'no state'),
  ].join('')}</div>`;
}

function activity(m: ReportModel): string {
  const long = m.activity.longSessions;
  const longTable = long.length
    ? table(
        ['session', 'open since', 'days', 'subdomain'],
        long.map((l) => [esc(l.id), esc(l.creationTime), l.ageDays.toFixed(1), esc(l.subdomain)]),
      )
    : '';
  return `<h2 id="activity">Activity</h2>
<h3>Sessions per day by mode</h3>${sessionsByModeChart(m.activity.byMode)}
<h3>Live sessions over time (<code>active/</code>)</h3>${liveChart(m.activity.live)}
<h3>Tunnels open longer than history can show: ${figure('status.live.longSessions', long.length)}</h3>${longTable}`;
}

function verifySection(m: ReportModel): string {
  const v = m.verify;
  if (!v)
    return '<p>No verify result is stored: <code>tunnel-archiver report --verify</code> adds a fresh archive-only check (the weekly verify in AWS stores its result in <code>reports/verify.json</code>).</p>';
  const failures = v.failures.slice(0, MAX_FAILURES_SHOWN);
  const source =
    m.verifySource === 'stored'
      ? `the last stored result (<code>reports/verify.json</code>, checked ${ageOf(v.checkedAt, new Date(m.generatedAt))})`
      : 'a fresh check';
  return `<p>verify, ${source}, checked at ${esc(v.checkedAt)}: <span class="${v.ok ? 'ok' : 'bad'}">${v.ok ? 'OK' : 'FAILED'}</span>,
${figure('verify.failures', v.failures.length)} failure(s); ${figure('verify.digests', v.digests)} digests,
${figure('verify.files', v.files)} files, ${figure('verify.rows', v.rows)} rows, ${figure('verify.records', v.records)} distinct records;
${figure('verify.pending', v.pending)} pending; ${figure('verify.lostSessions', v.lostSessions)} sessions seen live that history never listed.</p>
${
  failures.length
    ? table(
        ['check', 'object or day', 'what is wrong'],
        failures.map((f) => [esc(f.kind), `<code>${esc(f.object ?? f.day ?? '')}</code>`, esc(f.message)]),
      )
    : ''
}
${v.failures.length > failures.length ? `<p>and ${v.failures.length - failures.length} more (see <code>verify --json</code>).</p>` : ''}`;
}

function health(m: ReportModel): string {
  const h = m.health;
  const now = new Date(m.generatedAt);
  const s = m.status;
  const rows: string[][] = [
    ['last run', `${figure('status.meta.lastRunAt', h.lastRunAt ?? 'never')} (${ageOf(h.lastRunAt, now)})`],
    [
      'last successful run',
      s ? figure('status.meta.lastSuccessAt', s.meta?.lastSuccessAt ?? 'never') : 'no state',
    ],
    ['weekly verify', s ? figure('status.meta.verified', describeVerified(s.meta?.verified)) : 'no state'],
    ['last full verify job', figure('fullVerifyJob', describeFullVerify(m.fullVerifyJob))],
    [
      'last digest',
      `${figure('verify.lastDigestAt', h.lastDigestAt ?? 'never')} (${ageOf(h.lastDigestAt, now)})`,
    ],
    ['quarantined records', figure('health.quarantined', h.quarantined)],
    ['unpublished (staged) files', figure('health.unpublished', h.unpublished)],
    ['foreign (unlisted) files', h.foreign === null ? 'not verified' : figure('health.foreign', h.foreign)],
    [
      'window',
      `${m.windowDays} days configured; learned: ${h.learnedWindowDays === null ? 'none (the server kept the whole window)' : figure('status.meta.learnedWindowDays', h.learnedWindowDays)}`,
    ],
  ];
  const failed = s?.failed.length
    ? table(
        ['failing day', 'code', 'message', 'runs in a row'],
        s.failed.map((f) => [esc(f.day), esc(f.code), esc(f.message), String(f.attempts)]),
      )
    : '';
  return `<h2 id="health">Health</h2>${table([], rows)}${failed}<h3>verify</h3>${verifySection(m)}`;
}

function findings(m: ReportModel): string {
  const f = m.findings;
  if (!f) return '';
  return `<h2 id="findings">Findings</h2><p>${figure('findings.total', f.total)} finding(s).</p>
${table(
  ['rule', 'severity', 'count'],
  f.byRule.map((r) => [esc(r.rule), esc(r.severity), String(r.count)]),
)}
<h3>Latest</h3>${table(
    ['rule', 'severity', 'day', 'entity', 'last seen'],
    f.latest.map((l) => [
      esc(l.rule),
      esc(l.severity),
      esc(l.dt),
      `<code>${esc(l.entity)}</code>`,
      esc(l.lastSeen),
    ]),
  )}`;
}

function integrity(m: ReportModel): string {
  const head = m.integrity.head;
  return `<h2 id="integrity">Integrity</h2><p>Compare these with what you saw last (pass the head to <code>verify --expect-head SEQ:SHA256</code>).</p>
${table(
  [],
  [
    ['chain head seq', head ? figure('verify.head.seq', head.seq) : 'no digest yet'],
    ['chain head SHA-256', head ? `<code>${figure('verify.head.sha256', head.sha256)}</code>` : '-'],
    ['written at', head ? esc(head.at ?? 'unknown') : '-'],
    [
      'public key fingerprint (SHA-256 of its DER)',
      `<code>${figure('integrity.publicKey', m.integrity.publicKeyFingerprint ?? 'no public key')}</code>`,
    ],
  ],
)}`;
}

/**
 * The report as one self-contained HTML page: inline CSS and SVG, no script, no font or image from
 * elsewhere, so it opens the same from `file://`, a presigned URL or an e-mail attachment.
 */
export function renderReport(m: ReportModel): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>tunnel-archiver report: ${esc(m.archive)}</title><style>${REPORT_CSS}</style></head>
<body>
<h1>tunnel-archiver report</h1>
<p class="meta">Archive <code>${esc(m.archive)}</code>, generated ${esc(m.generatedAt)} (today ${esc(m.today)}, UTC).
${m.status ? '' : 'The state could not be read: the calendar comes from the digests alone.'}</p>
${summary(m)}
<h2 id="coverage">Coverage</h2>
${renderCalendar(m.calendar)}
${activity(m)}
${health(m)}
${findings(m)}
${integrity(m)}
</body></html>
`;
}
