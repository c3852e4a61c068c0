import { esc } from './html.ts';
import { type CalendarDay, DAY_STATUS_LABEL, DAY_STATUSES, type DayStatus } from './reportModel.ts';

/** The letter each cell carries, so colour is never the only cue. */
const GLYPH: Record<DayStatus, string> = {
  sealed: 'S',
  window: 'W',
  pending: 'P',
  gap: 'G',
  failed: 'F',
  broken: 'B',
};

function tip(d: CalendarDay): string {
  const ages = d.scannedAges.length ? `at ages ${d.scannedAges.join(',')}` : 'never scanned completely';
  const detail = d.detail ? ` (${esc(d.detail)})` : '';
  return `${d.day} · ${DAY_STATUS_LABEL[d.status]}${detail}<br>records ${d.records} · files ${d.files} (${d.rows} rows) · scans ${d.scans}, ${ages}`;
}

function cell(d: CalendarDay, first: boolean): string {
  const row = first ? ` style="grid-row-start:${new Date(`${d.day}T00:00:00Z`).getUTCDay() + 1}"` : '';
  const detail = d.detail ? ` data-detail="${esc(d.detail)}"` : '';
  return `<div class="cell s-${d.status}" tabindex="0" data-day="${d.day}" data-status="${d.status}"${detail}${row} aria-label="${d.day} ${DAY_STATUS_LABEL[d.status]}">${GLYPH[d.status]}<span class="tip" role="tooltip">${tip(d)}</span></div>`;
}

/** The legend: one swatch, glyph and label per status, with how many days have it. */
export function renderLegend(days: CalendarDay[]): string {
  const count = (s: DayStatus) => days.filter((d) => d.status === s).length;
  return `<ul class="legend">${DAY_STATUSES.map(
    (s) =>
      `<li><span class="cell s-${s}">${GLYPH[s]}</span> ${DAY_STATUS_LABEL[s]} <span data-legend="${s}">${count(s)}</span></li>`,
  ).join('')}</ul>`;
}

/**
 * The coverage calendar, one block per year (folded; the newest year open), a column per week and a
 * cell per day. A cell shows its day on hover or keyboard focus (CSS only: the page has no script).
 */
export function renderCalendar(days: CalendarDay[]): string {
  const years = new Map<string, CalendarDay[]>();
  for (const d of days) {
    const y = d.day.slice(0, 4);
    const list = years.get(y) ?? [];
    list.push(d);
    years.set(y, list);
  }
  const blocks = [...years].reverse().map(([year, ds], i) => {
    const problems = ds.filter((d) => d.status !== 'sealed' && d.status !== 'window').length;
    const cells = ds.map((d, j) => cell(d, j === 0)).join('');
    return `<details class="year"${i === 0 ? ' open' : ''}><summary>${year}: ${ds.length} days, ${problems} not sealed or in the window</summary><div class="grid">${cells}</div></details>`;
  });
  return `${renderLegend(days)}${blocks.join('')}`;
}
