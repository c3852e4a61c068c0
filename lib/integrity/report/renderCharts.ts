import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import type { LivePoint, ModeCount } from './reportModel.ts';

/** Most points a line is drawn with: a 3-year series is reduced to the maximum of each bucket. */
const MAX_POINTS = 1000;

/** A server-side DOM for Plot: it renders static SVG, serialised into the page (no script). */
function plotDocument(): NonNullable<Plot.PlotOptions['document']> {
  return parseHTML('<!doctype html><html><body></body></html>').document as unknown as NonNullable<
    Plot.PlotOptions['document']
  >;
}

const utc = (day: string) => new Date(`${day}T00:00:00Z`);

/** What both charts share: the server-side DOM, the page's width, a UTC time axis. */
const frame = (height: number, yLabel: string) => ({
  document: plotDocument(),
  width: 900,
  height,
  marginLeft: 50,
  x: { type: 'utc' as const, label: null },
  y: { label: yLabel, grid: true },
});

/** Sessions per day, stacked by mode; weekly bars once the archive is longer than half a year. */
export function sessionsByModeChart(byMode: ModeCount[]): string {
  if (byMode.length === 0) return '<p>No sessions archived yet.</p>';
  const days = new Set(byMode.map((m) => m.day)).size;
  const interval = days > 183 ? 'week' : 'day';
  const chart = Plot.plot({
    ...frame(220, `sessions per ${interval}`),
    color: { legend: true, scheme: 'tableau10' },
    marks: [
      Plot.rectY(
        byMode,
        // `y` is the channel the sum reduces (Plot's types omit it from the bin inputs).
        Plot.binX({ y: 'sum' }, {
          x: (m: ModeCount) => utc(m.day),
          y: 'sessions',
          fill: 'mode',
          interval,
        } as Plot.BinXInputs<Plot.RectYOptions>),
      ),
      Plot.ruleY([0]),
    ],
  });
  return chart.outerHTML;
}

/** Keeps at most `MAX_POINTS`: the largest open count of each run of neighbouring points. */
export function downsample(points: LivePoint[], max = MAX_POINTS): LivePoint[] {
  if (points.length <= max) return points;
  const size = Math.ceil(points.length / max);
  const out: LivePoint[] = [];
  for (let i = 0; i < points.length; i += size) {
    const slice = points.slice(i, i + size);
    out.push(slice.reduce((a, b) => (b.open > a.open ? b : a)));
  }
  return out;
}

/** Sessions open at each snapshot of `active/`, as a step line. */
export function liveChart(live: LivePoint[]): string {
  if (live.length === 0) return '<p>No live snapshots in <code>active/</code> yet.</p>';
  const points = downsample(live).map((p) => ({ at: new Date(p.at), open: p.open }));
  const chart = Plot.plot({
    ...frame(160, 'open sessions'),
    marks: [
      Plot.lineY(points, { x: 'at', y: 'open', curve: 'step-after' }),
      // A few snapshots draw no visible line: each gets a dot.
      ...(points.length <= 50 ? [Plot.dot(points, { x: 'at', y: 'open', fill: 'currentColor' })] : []),
      Plot.ruleY([0]),
    ],
  });
  return chart.outerHTML;
}
