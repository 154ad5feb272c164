// Crashes per day by likely or confirmed cause (GET /api/bundles/trends), drawn with uPlot on a canvas.
// uPlot sets positions through CSSOM (element.style.x = ...) and its stylesheet is bundled as a file, so
// it works under the server's `style-src 'self'` policy.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './TrendsChart.css';
import { getJson } from '../api.ts';
import { Link } from '../router.tsx';
import { plural } from '../format.ts';
import { ProblemText } from './common.tsx';

export interface TrendSeries {
  /** The KB article id, or null for crashes without a likely cause. */
  causeId: string | null;
  title: string;
  counts: number[];
  total: number;
}

export interface Trends {
  /** UTC days, oldest first (YYYY-MM-DD). */
  days: string[];
  series: TrendSeries[];
  total: number;
}

/** The most causes drawn as their own line; the rest are added up as "Other causes". */
const MAX_LINES = 6;
const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#6b7280'];
/** Each line also has its own dash and marker shape, so lines that run together (or a colour-blind reader) still tell apart. */
const DASHES: number[][] = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4], [12, 6], [1, 4]];

export function getTrends(days: number, signal?: AbortSignal): Promise<Trends> {
  return getJson<Trends>(`/api/bundles/trends?days=${days}`, signal);
}

/** The series drawn: the biggest causes, then the others summed. */
export function chartSeries(t: Trends): TrendSeries[] {
  const top = t.series.slice(0, MAX_LINES);
  const rest = t.series.slice(MAX_LINES);
  if (rest.length === 0) return top;
  const counts = t.days.map((_, i) => rest.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0));
  return [...top, { causeId: null, title: `Other causes (${rest.length})`, counts, total: counts.reduce((a, b) => a + b, 0) }];
}

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; trends: Trends };

/** The home page's trends panel: crashes per day by cause over the last `days` days. */
export function TrendsPanel({ days = 30 }: { days?: number }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    const controller = new AbortController();
    getTrends(days, controller.signal).then(
      (trends) => setState({ kind: 'loaded', trends }),
      (err) => {
        if (!controller.signal.aborted) {
          setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load the trends.' });
        }
      },
    );
    return () => controller.abort();
  }, [days]);

  let body;
  if (state.kind === 'loading') body = <p className="muted">Loading trends…</p>;
  else if (state.kind === 'error') body = <p className="muted">The trends could not be loaded: <ProblemText>{state.message}</ProblemText></p>;
  else if (state.trends.total === 0)
    body = (
      <p className="muted" data-testid="trends-empty">
        No crashes diagnosed in the last {plural(days, 'day')}.
      </p>
    );
  else body = <TrendsChart trends={state.trends} />;

  return (
    <section className="trends" aria-labelledby="trends-heading" data-testid="trends">
      <h2 id="trends-heading">
        Crashes per day by cause{' '}
        <span className="muted trends-sub">
          last {plural(days, 'day')}
          {state.kind === 'loaded' && <> · {state.trends.total.toLocaleString()} in all</>}
        </span>
      </h2>
      {body}
    </section>
  );
}

/** The chart itself, with a legend whose entries link to the search for that cause. */
export function TrendsChart({ trends }: { trends: Trends }) {
  const holder = useRef<HTMLDivElement>(null);
  const series = chartSeries(trends);

  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const xs = trends.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [xs, ...series.map((s) => s.counts)];
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 240,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        // uPlot's own legend: each series' count on the hovered day, beside its swatch (the list below links)
        legend: { show: true, live: true },
        cursor: { drag: { x: false, y: false }, points: { size: 9 }, focus: { prox: 24 } },
        focus: { alpha: 0.25 },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
        axes: [{}, { label: 'crashes', values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? String(v) : '')) }],
        series: [
          { label: 'Day', value: (_u: uPlot, ts: number | null) => (ts == null ? '—' : new Date(ts * 1000).toISOString().slice(0, 10)) },
          ...series.map((s, i) => ({
            label: s.title,
            stroke: COLORS[i % COLORS.length],
            width: 2,
            dash: DASHES[i % DASHES.length],
            points: { show: trends.days.length <= 31, size: 5 + (i % 3) * 2 },
            value: (_u: uPlot, v: number | null) => (v == null ? '—' : plural(v, 'crash', 'crashes')),
          })),
        ],
      },
      data,
      el,
    );
    const resize = () => plot.setSize({ width: width(), height: 240 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [trends]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <figure className="trends-chart">
      <div ref={holder} className="trends-canvas" data-testid="trends-chart" data-series={series.length} data-days={trends.days.length} />
      <figcaption>
        <ul className="trends-legend" data-testid="trends-legend">
          {series.map((s, i) => (
            <li key={`${s.causeId ?? 'none'}-${i}`} data-testid="trends-legend-item" data-total={s.total}>
              <span className={`trends-swatch trends-swatch-${i % COLORS.length}`} aria-hidden="true" />
              {s.causeId ? (
                <Link to={`/bundles?q=${encodeURIComponent(`cause:${s.causeId}`)}`}>{s.title}</Link>
              ) : (
                <span>{s.title}</span>
              )}{' '}
              <span className="count">{s.total.toLocaleString()}</span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
