// What the energy calendar (energy-history.ts) draws of a period: its kWh figures, shares,
// cost and savings, bars per hour, day or month (sources up, uses down; tap a bar for its
// figures), and the CSV of what is shown. Buckets follow the site's time zone; numbers and
// dates the browser's locale.

import { h, replace } from '../ui/dom.js';
import {
  bucketsWithData,
  moneyNotes,
  moneyTotal,
  sharesOf,
  totalsOf,
  ENERGY_KINDS,
  type EnergyKind,
} from '../state/energy.js';
import type { PeriodEnergy, SiteClock } from '../state/energy-data.js';
import { formatNumber, formatQuantity } from '../ui/format.js';
import { wallTime, type Period } from '../state/zone.js';

export const ENERGY_LABELS: Record<EnergyKind, string> = {
  pv: 'Solar produced',
  load: 'Home used',
  import: 'Bought from grid',
  export: 'Sold to grid',
  charge: 'Battery charged',
  discharge: 'Battery discharged',
};
const SOURCES: EnergyKind[] = ['pv', 'import', 'discharge'];
const USES: EnergyKind[] = ['load', 'export', 'charge'];
const CLASS: Record<EnergyKind, string> = {
  pv: 'pv',
  load: 'load',
  import: 'grid',
  export: 'grid-out',
  charge: 'battery',
  discharge: 'battery-out',
};

/** What a bucket without readings reads, everywhere a figure would be. */
export const NO_DATA = 'no data';

export const kwh = (value: number | null) => (value === null ? NO_DATA : formatQuantity(value, 'kWh'));
const percent = (share: number | null) =>
  share === null ? '—' : new Intl.NumberFormat(undefined, { style: 'percent' }).format(share);

export function money(value: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(value);
  } catch {
    return `${formatNumber(value, 2)} ${currency}`;
  }
}

/**
 * The figures of a period as a definition list: energy, shares, and the money with what it
 * includes (import cost, export revenue, standing charge, net) where prices cover it.
 */
export function energyFigures(target: HTMLElement, energy: PeriodEnergy): void {
  const totals = totalsOf(energy.table);
  const shares = sharesOf(totals);
  const rows: Array<[string, string]> = ENERGY_KINDS.map((k) => [ENERGY_LABELS[k], kwh(totals[k])]);
  rows.push(['Self-consumption', percent(shares.selfConsumption)]);
  rows.push(['Self-sufficiency', percent(shares.selfSufficiency)]);
  const total = moneyTotal(energy.money);
  const withData = bucketsWithData(energy.table);
  if (total && energy.currency && total.pricedHours > 0) {
    const currency = energy.currency;
    rows.push(['Import cost', money(total.importCost, currency)]);
    rows.push(['Export revenue', money(total.exportRevenue, currency)]);
    rows.push(['Standing charge', money(total.standingCharge, currency)]);
    rows.push(['Net cost', money(total.netCost, currency)]);
    rows.push(['Savings', money(total.savings, currency)]);
  } else if (withData > 0) {
    rows.push(['Net cost', '—']);
    rows.push(['Savings', '—']);
  }
  replace(
    target,
    rows.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
  );
  const notes = [
    withData === 0 ? 'No data recorded for this period.' : '',
    total ? 'Net cost = import cost − export revenue + standing charge; savings leave the standing charge out.' : '',
    ...moneyNotes(total, totals.export, withData),
  ].filter(Boolean);
  // Beside the list, not in it: a <dl> holds only its groups (axe: definition-list).
  let box = target.nextElementSibling;
  if (!(box instanceof HTMLElement && box.classList.contains('energy-notes'))) {
    box = h('div', { class: 'energy-notes' });
    target.after(box);
  }
  replace(
    box,
    notes.map((text) => h('p', { class: 'hint' }, text)),
  );
}

export interface View {
  clock: SiteClock;
  period: Period;
  start: number;
}

/** A bucket's label in the zone it was counted in: its hour, day or month. */
export function bucketLabel(period: Period, t: number, zone: string, long = false): string {
  if (period === 'day') return new Date(t).toLocaleTimeString(undefined, { hour: '2-digit', timeZone: zone });
  if (period === 'year')
    return new Date(t).toLocaleDateString(undefined, { month: long ? 'long' : 'short', timeZone: zone });
  return new Date(t).toLocaleDateString(undefined, {
    day: 'numeric',
    ...(long || period === 'week' ? { weekday: 'short' } : {}),
    ...(long ? { month: 'short' } : {}),
    timeZone: zone,
  });
}

/**
 * Which buckets get an axis label, and which of those give way on a phone ('minor'): every
 * 3rd hour (6th on a phone), every day of a week, the 1st and every 5th day of a month
 * (10th on a phone), every month of a year (every 3rd on a phone).
 */
export function axisLabel(period: Period, t: number, zone: string): 'major' | 'minor' | null {
  const w = wallTime(zone, t);
  if (period === 'day') return w.hour % 6 === 0 ? 'major' : w.hour % 3 === 0 ? 'minor' : null;
  if (period === 'week') return 'major';
  if (period === 'month') return w.day === 1 || w.day % 10 === 0 ? 'major' : w.day % 5 === 0 ? 'minor' : null;
  return (w.month - 1) % 3 === 0 ? 'major' : 'minor';
}

/** The scale's top: the next of 1, 2, 2.5, 5 × 10^n at or above `max` kWh. */
export function niceTop(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max - 1e-9) return step * power;
  return 10 * power;
}

/** "Wednesday 25 November 2026", "Week of 23 Nov 2026", "November 2026", "2026", in the browser's words. */
export function periodTitle(view: View): string {
  const d = new Date(view.start);
  const timeZone = view.clock.zone;
  if (view.period === 'day') return d.toLocaleDateString(undefined, { dateStyle: 'full', timeZone });
  if (view.period === 'week') return `Week of ${d.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone })}`;
  if (view.period === 'month') return d.toLocaleDateString(undefined, { month: 'long', year: 'numeric', timeZone });
  return d.toLocaleDateString(undefined, { year: 'numeric', timeZone });
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** An axis label at `at` percent along (or down) its axis, set through the CSSOM (the CSP refuses style attributes). */
function placed(className: string, at: number, text: string, side: 'left' | 'top'): HTMLElement {
  const edge = side === 'left' ? (at < 5 ? ' start' : at > 95 ? ' end' : '') : '';
  const span = h('span', { class: className + edge }, text);
  span.style[side] = `${at}%`;
  return span;
}

/**
 * Bars: per bucket, sources stacked up and uses stacked down from the middle line, a kWh
 * scale at the side, the buckets' hours, days or months below, a dashed mark for a bucket
 * with no data; a tapped bar is outlined.
 */
export function drawBars(energy: PeriodEnergy, zone: string, onPick: (i: number) => void): HTMLElement {
  const n = energy.buckets.length;
  const value = (k: EnergyKind, i: number) => energy.table[k][i] ?? 0;
  const up = energy.buckets.map((_, i) => SOURCES.reduce((a, k) => a + value(k, i), 0));
  const down = energy.buckets.map((_, i) => USES.reduce((a, k) => a + value(k, i), 0));
  const top = niceTop(Math.max(0, ...up, ...down));
  const chart = svg('svg', { viewBox: `0 0 ${n * 10} 200`, preserveAspectRatio: 'none', class: 'energy-bars' });
  chart.setAttribute('aria-hidden', 'true');
  for (const level of [50, 150]) chart.append(svg('line', { x1: 0, x2: n * 10, y1: level, y2: level, class: 'grid' }));
  chart.append(svg('line', { x1: 0, x2: n * 10, y1: 100, y2: 100, class: 'axis' }));
  const hits: SVGElement[] = [];
  for (let i = 0; i < n; i++) {
    if (ENERGY_KINDS.every((k) => energy.table[k][i] === null))
      chart.append(svg('rect', { x: i * 10 + 1.5, width: 7, y: 96, height: 8, class: 'nodata' }));
    let y = 100;
    for (const k of SOURCES) {
      const hgt = (value(k, i) / top) * 100;
      y -= hgt;
      if (hgt > 0) chart.append(svg('rect', { x: i * 10 + 1.5, width: 7, y, height: hgt, class: `seg ${CLASS[k]}` }));
    }
    y = 100;
    for (const k of USES) {
      const hgt = (value(k, i) / top) * 100;
      if (hgt > 0) chart.append(svg('rect', { x: i * 10 + 1.5, width: 7, y, height: hgt, class: `seg ${CLASS[k]}` }));
      y += hgt;
    }
    const hit = svg('rect', { x: i * 10, width: 10, y: 0, height: 200, class: 'hit', 'data-bucket': i });
    hit.addEventListener('click', () => {
      for (const other of hits) other.classList.remove('picked');
      hit.classList.add('picked');
      onPick(i);
    });
    hits.push(hit);
    chart.append(hit);
  }
  const scale = h(
    'div',
    { class: 'energy-scale', 'aria-hidden': 'true' },
    [top, top / 2, 0, top / 2, top].map((v, i) =>
      placed('tick', i * 25, v === 0 ? '0' : formatQuantity(v, 'kWh'), 'top'),
    ),
  );
  const axis = h('div', { class: 'price-axis energy-axis', 'aria-hidden': 'true' });
  energy.buckets.forEach((t, i) => {
    const kind = axisLabel(energy.period, t, energy.zones[i] ?? zone);
    if (kind)
      axis.append(
        placed(
          kind === 'major' ? 'tick' : 'tick minor',
          ((i + 0.5) / n) * 100,
          bucketLabel(energy.period, t, energy.zones[i] ?? zone),
          'left',
        ),
      );
  });
  return h('div', { class: 'energy-chart' }, scale, h('div', { class: 'energy-plot' }, chart, axis));
}

/** The shown table as CSV: local bucket start (with the zone it was counted in), then kWh of each kind; empty for no data. */
export function energyCsv(energy: PeriodEnergy, zone: string): string {
  const cost = energy.currency ? `,net_cost_${energy.currency.toLowerCase()}` : '';
  const lines = [`start (${zone}),${ENERGY_KINDS.map((k) => `${k}_kwh`).join(',')}${cost}`];
  energy.buckets.forEach((t, i) => {
    const local = new Date(t).toLocaleString('sv-SE', { timeZone: energy.zones[i] ?? zone }).replace(' ', 'T');
    const m = energy.money[i];
    const net = energy.currency ? `,${m && m.pricedHours > 0 ? m.netCost : ''}` : '';
    lines.push(`${local},${ENERGY_KINDS.map((k) => energy.table[k][i] ?? '').join(',')}${net}`);
  });
  return `${lines.join('\n')}\n`;
}

/** The bars' colours in words: sources (up) first, then uses (down). */
export function energyLegend(): HTMLElement {
  return h(
    'p',
    { class: 'legend' },
    ...[...SOURCES, ...USES].map((k) => h('span', { class: `key ${CLASS[k]}` }, ENERGY_LABELS[k])),
  );
}
