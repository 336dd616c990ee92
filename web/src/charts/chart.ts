// The chart of a day (or week, month, year): PV, load, grid and battery power and the
// battery's state of charge from /history, with the PV forecast from /forecast dashed.
// uPlot draws it (about 20 kB compressed, canvas, fast on a phone).

import uPlot from 'uplot';
import { api } from '../api/client.js';
import { formatNumber, formatQuantity } from '../ui/format.js';
import type { Series } from '../api/types.js';
import { spanColumn, timeTicks } from './chart-scale.js';

export { spanColumn, timeTicks };

export type RangeId = 'day' | 'week' | 'month' | 'year';
export type Agg = 'mean' | 'max' | 'min';

export const RANGES: Record<RangeId, { label: string; days: number; groupBy: string; bucketH: number }> = {
  day: { label: 'Day', days: 1, groupBy: '10m', bucketH: 10 / 60 },
  week: { label: 'Week', days: 7, groupBy: '1h', bucketH: 1 },
  month: { label: 'Month', days: 30, groupBy: '6h', bucketH: 6 },
  year: { label: 'Year', days: 365, groupBy: '1d', bucketH: 24 },
};

export const POWER_SERIES = [
  { topic: 'total/pv_power', label: 'Solar', className: 'pv', color: '#b45f00' },
  { topic: 'total/load_power', label: 'Home', className: 'load', color: '#1f5fbf' },
  { topic: 'total/grid_power', label: 'Grid (+ import)', className: 'grid', color: '#6b6b6b' },
  { topic: 'total/battery_power', label: 'Battery (+ charging)', className: 'battery', color: '#1a7f37' },
] as const;
const SOC = { topic: 'total/battery_state_of_charge', label: 'Battery charge', color: '#8a3ffc' };
const FORECAST = { topic: 'weather/pv_power_predicted', label: 'Solar forecast', color: '#e08a00' };

/** The range's start: local midnight `days - 1` days before today. */
export function rangeStart(range: RangeId, now = new Date()): Date {
  const start = new Date(now);
  start.setHours(0, 0, 0, 0);
  start.setDate(start.getDate() - (RANGES[range].days - 1));
  return start;
}

export interface ChartData {
  times: number[];
  /** Per series topic, a value or null per time. */
  columns: Map<string, Array<number | null>>;
  bucketH: number;
}

async function history(topic: string, from: Date, to: Date, groupBy: string, agg: Agg): Promise<Series | null> {
  const query = new URLSearchParams({ topic, from: from.toISOString(), to: to.toISOString(), group_by: groupBy, agg });
  return api<Series>('GET', `/history?${query}`).catch(() => null);
}

async function forecast(from: Date, to: Date): Promise<Series | null> {
  const query = new URLSearchParams({ topic: FORECAST.topic, from: from.toISOString(), to: to.toISOString() });
  return api<Series>('GET', `/forecast?${query}`).catch(() => null);
}

/**
 * Loads every series of the range and puts them on one time axis: the last `days` days by
 * the browser's midnights, or the given window (a calendar period in the site's zone).
 */
export async function loadChartData(
  range: RangeId,
  agg: Agg,
  now = new Date(),
  window?: { from: number; to: number },
): Promise<ChartData> {
  const { groupBy, bucketH, days } = RANGES[range];
  const from = window ? new Date(window.from) : rangeStart(range, now);
  const end = new Date(from);
  if (window) end.setTime(window.to);
  else end.setDate(end.getDate() + days);
  const to = now < end ? now : end;
  if (to <= from) return { times: [], columns: new Map(), bucketH };
  const topics = [...POWER_SERIES.map((s) => s.topic), SOC.topic];
  const answers = await Promise.all([
    ...topics.map((t) => history(t, from, to, groupBy, agg)),
    range === 'day' || range === 'week' ? forecast(from, end) : Promise.resolve(null),
  ]);
  const byTopic = new Map<string, Map<number, number>>();
  const times = new Set<number>();
  [...topics, FORECAST.topic].forEach((topic, i) => {
    const points = new Map<number, number>();
    for (const [time, value] of answers[i]?.points ?? []) {
      const t = Date.parse(time) / 1000;
      points.set(t, value);
      times.add(t);
    }
    byTopic.set(topic, points);
  });
  const sorted = [...times].sort((a, b) => a - b);
  const columns = new Map<string, Array<number | null>>();
  for (const [topic, points] of byTopic)
    columns.set(
      topic,
      sorted.map((t) => points.get(t) ?? null),
    );
  return { times: sorted, columns, bucketH };
}

/**
 * Names uPlot's legend and lets the keyboard reach it: on a narrow screen it is one row that
 * scrolls sideways (style.css) instead of three or four lines; a tap on an entry hides or
 * shows its line, as uPlot does.
 */
export function compactLegend(plot: uPlot, name: string): void {
  const legend = plot.root.querySelector('.u-legend');
  if (!legend) return;
  legend.setAttribute('tabindex', '0');
  legend.setAttribute('aria-label', name);
}

/** The chart's lines: time, the power series, the state of charge and the forecast (dashed). */
function chartSeries(range: RangeId, zone: string | undefined): uPlot.Series[] {
  // The theme's colours (style.css), so the lines keep their contrast in the dark theme.
  const css = getComputedStyle(document.documentElement);
  const color = (className: string, fallback: string) => css.getPropertyValue(`--${className}`).trim() || fallback;
  return [
    {
      value: (_u, v) =>
        v === null
          ? '—'
          : new Date(v * 1000).toLocaleString(
              undefined,
              range === 'day'
                ? { hour: '2-digit', minute: '2-digit', timeZone: zone }
                : { dateStyle: 'short', timeStyle: 'short', timeZone: zone },
            ),
    },
    ...POWER_SERIES.map((s) => ({
      label: s.label,
      stroke: color(s.className, s.color),
      width: 1.5,
      scale: 'W',
      value: (_u: uPlot, v: number | null) => (v === null ? '—' : formatQuantity(v, 'W')),
    })),
    {
      label: SOC.label,
      stroke: SOC.color,
      width: 1.5,
      scale: '%',
      value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${formatNumber(v, 0)} %`),
    },
    {
      label: FORECAST.label,
      stroke: FORECAST.color,
      width: 1.5,
      dash: [6, 4],
      scale: 'W',
      value: (_u: uPlot, v: number | null) => (v === null ? '—' : formatQuantity(v, 'W')),
    },
  ];
}

/** The time axis (ticks on the site's hours), the power axis and the state-of-charge axis. */
function chartAxes(zone: string | undefined): uPlot.Axis[] {
  const powerAxisValues = (_u: uPlot, ticks: number[]) => ticks.map((v) => formatQuantity(v, 'W'));
  return [
    {
      stroke: 'currentColor',
      values: (u, ticks) => timeTicks(ticks, (u.scales.x?.max ?? 0) - (u.scales.x?.min ?? 0), zone),
      // Room for "06:00 PM" and "Wed 25": no labels running into each other on a phone.
      space: 72,
      grid: { stroke: 'rgba(128,128,128,0.2)' },
      ticks: { stroke: 'rgba(128,128,128,0.3)' },
    },
    {
      scale: 'W',
      stroke: 'currentColor',
      values: powerAxisValues,
      size: 64,
      grid: { stroke: 'rgba(128,128,128,0.2)' },
      ticks: { stroke: 'rgba(128,128,128,0.3)' },
    },
    {
      scale: '%',
      side: 1,
      stroke: 'currentColor',
      values: (_u, ticks) => ticks.map((v) => `${v} %`),
      size: 48,
      grid: { show: false },
    },
  ];
}

/** Draws (or redraws) the chart into `container`, sized to it; times in `zone` (default the browser's). */
export function drawChart(container: HTMLElement, data: ChartData, range: RangeId, zone?: string): () => void {
  const width = () => Math.max(240, container.clientWidth);
  const height = () => (window.innerWidth < 600 ? 220 : 300);
  const opts: uPlot.Options = {
    width: width(),
    height: height(),
    scales: { x: { time: true }, '%': { range: [0, 100] } },
    // Ticks fall on the site's hours and midnights, not the browser's.
    ...(zone ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), zone) } : {}),
    series: chartSeries(range, zone),
    axes: chartAxes(zone),
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
  };
  const stepS = data.bucketH * 3600;
  const columns = [...POWER_SERIES.map((s) => s.topic), SOC.topic, FORECAST.topic].map((t) =>
    spanColumn(data.times, data.columns.get(t) ?? [], t === FORECAST.topic ? 900 : stepS),
  );
  const plot = new uPlot(opts, [data.times, ...columns] as uPlot.AlignedData, container);
  compactLegend(plot, 'Chart legend: tap an entry to hide or show its line');
  const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: height() }));
  observer.observe(container);
  return () => {
    observer.disconnect();
    plot.destroy();
  };
}
