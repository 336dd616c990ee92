/* eslint-disable max-lines-per-function -- a view built in one closure (its DOM, state and handlers); to split into smaller parts */
// Energy by calendar: pick a day, week, month or year by date (or step with previous and
// next), see its kWh figures, shares, cost and savings, bars per hour, day or month
// (sources up, uses down; tap a bar for its figures), and download what is shown as CSV.
// Buckets follow the site's time zone; numbers and dates the browser's locale.

import { api } from './api.js';
import { h, replace, uid } from './dom.js';
import { costNote, moneyOf, sharesOf, totalsOf, ENERGY_KINDS, type EnergyKind, type PriceInterval } from './energy.js';
import { loadPeriodEnergy, loadSiteClock, type PeriodEnergy, type SiteClock } from './energy-data.js';
import { formatNumber, formatQuantity } from './format.js';
import type { GridAnswer } from './types.js';
import { addPeriods, fromIsoDate, isoDate, periodStart, type Period } from './zone.js';

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

export interface Prices {
  currency: string;
  intervals: PriceInterval[];
}

/**
 * The price slots /grid knows, as intervals: today and ahead, or those of [from, to) (the
 * service keeps past prices); null without dynamic prices.
 */
export async function loadPrices(range?: { from: number; to: number }): Promise<Prices | null> {
  const query = range ? `?from=${new Date(range.from).toISOString()}&to=${new Date(range.to).toISOString()}` : '';
  const answer = await api<GridAnswer>('GET', `/grid${query}`).catch(() => null);
  const pricing = answer?.pricing;
  if (!pricing) return null;
  return {
    currency: pricing.currency,
    intervals: pricing.slots.map((s) => ({
      from: Date.parse(s.from),
      to: Date.parse(s.to),
      importPrice: 'price' in s ? s.price : s.import_price,
      exportPrice: 'export_price' in s ? s.export_price : null,
    })),
  };
}

const kwh = (value: number) => formatQuantity(value, 'kWh');
const percent = (share: number | null) =>
  share === null ? '—' : new Intl.NumberFormat(undefined, { style: 'percent' }).format(share);

function money(value: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(value);
  } catch {
    return `${formatNumber(value, 2)} ${currency}`;
  }
}

/** The figures of a period as a definition list: energy, shares, and cost where prices cover it. */
export function energyFigures(target: HTMLElement, energy: PeriodEnergy, prices: Prices | null): void {
  const totals = totalsOf(energy.table);
  const shares = sharesOf(totals);
  const rows: Array<[string, string]> = ENERGY_KINDS.map((k) => [ENERGY_LABELS[k], kwh(totals[k])]);
  rows.push(['Self-consumption', percent(shares.selfConsumption)]);
  rows.push(['Self-sufficiency', percent(shares.selfSufficiency)]);
  let note = '';
  if (prices) {
    const m = moneyOf(energy.hours, energy.hourly, prices.intervals);
    // The hours with a price are summed; those without are named, never guessed.
    const shown = m.priced > 0 || m.unpriced === 0;
    rows.push(['Net cost', shown ? money(m.cost, prices.currency) : '—']);
    rows.push(['Savings', shown ? money(m.savings, prices.currency) : '—']);
    note = costNote(m);
  }
  replace(
    target,
    rows.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
  );
  const notes = [energy.missing.length > 0 ? `Not recorded: ${energy.missing.join(', ')}.` : '', note].filter(Boolean);
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

interface View {
  clock: SiteClock;
  period: Period;
  start: number;
}

function bucketLabel(view: View, t: number, long = false): string {
  const zone = view.clock.zone;
  if (view.period === 'day') return new Date(t).toLocaleTimeString(undefined, { hour: '2-digit', timeZone: zone });
  if (view.period === 'year')
    return new Date(t).toLocaleDateString(undefined, { month: long ? 'long' : 'short', timeZone: zone });
  return new Date(t).toLocaleDateString(undefined, {
    day: 'numeric',
    ...(long || view.period === 'week' ? { weekday: 'short' } : {}),
    ...(long ? { month: 'short' } : {}),
    timeZone: zone,
  });
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

/** Bars: per bucket, sources stacked up and uses stacked down from the middle line. */
function drawBars(energy: PeriodEnergy, onPick: (i: number) => void): SVGSVGElement {
  const n = energy.buckets.length;
  const up = energy.buckets.map((_, i) => SOURCES.reduce((a, k) => a + energy.table[k][i]!, 0));
  const down = energy.buckets.map((_, i) => USES.reduce((a, k) => a + energy.table[k][i]!, 0));
  const top = Math.max(0.001, ...up, ...down);
  const chart = svg('svg', { viewBox: `0 0 ${n * 10} 200`, preserveAspectRatio: 'none', class: 'energy-bars' });
  chart.setAttribute('aria-hidden', 'true');
  chart.append(svg('line', { x1: 0, x2: n * 10, y1: 100, y2: 100, class: 'axis' }));
  for (let i = 0; i < n; i++) {
    let y = 100;
    for (const k of SOURCES) {
      const hgt = (energy.table[k][i]! / top) * 98;
      y -= hgt;
      if (hgt > 0) chart.append(svg('rect', { x: i * 10 + 1.5, width: 7, y, height: hgt, class: `seg ${CLASS[k]}` }));
    }
    y = 100;
    for (const k of USES) {
      const hgt = (energy.table[k][i]! / top) * 98;
      if (hgt > 0) chart.append(svg('rect', { x: i * 10 + 1.5, width: 7, y, height: hgt, class: `seg ${CLASS[k]}` }));
      y += hgt;
    }
    const hit = svg('rect', { x: i * 10, width: 10, y: 0, height: 200, class: 'hit' });
    hit.addEventListener('click', () => onPick(i));
    chart.append(hit);
  }
  return chart as SVGSVGElement;
}

/** The shown table as CSV: local bucket start (with offset), then kWh of each kind. */
export function energyCsv(energy: PeriodEnergy, zone: string): string {
  const lines = [`start (${zone}),${ENERGY_KINDS.map((k) => `${k}_kwh`).join(',')}`];
  energy.buckets.forEach((t, i) => {
    const local = new Date(t).toLocaleString('sv-SE', { timeZone: zone }).replace(' ', 'T');
    lines.push(`${local},${ENERGY_KINDS.map((k) => energy.table[k][i]).join(',')}`);
  });
  return `${lines.join('\n')}\n`;
}

/**
 * Mounts the calendar energy view; `onSelect` hears every period chosen (the power chart
 * follows it). Returns how to stop.
 */
export function mountEnergyHistory(
  container: HTMLElement,
  onSelect: (period: Period, start: number, end: number, zone: string) => void,
): () => void {
  let stopped = false;
  const dateId = uid('energy-date');
  const periodId = uid('energy-period');
  const periodSelect = h(
    'select',
    { id: periodId },
    (['day', 'week', 'month', 'year'] as const).map((p) =>
      h('option', { value: p }, p.charAt(0).toUpperCase() + p.slice(1)),
    ),
  );
  const dateInput = h('input', { type: 'date', id: dateId });
  const prev = h('button', { type: 'button', class: 'secondary', 'aria-label': 'Previous day' }, '‹');
  const next = h('button', { type: 'button', class: 'secondary', 'aria-label': 'Next day' }, '›');
  const today = h('button', { type: 'button', class: 'secondary' }, 'Today');
  const title = h('p', { class: 'period-title', 'aria-live': 'polite' });
  const figures = h('dl', { class: 'energy' });
  const bars = h('div', { class: 'bars-box', 'aria-busy': 'true' });
  const picked = h('p', { class: 'hint bar-detail', 'aria-live': 'polite' });
  const table = h('details', { class: 'energy-table' });
  const download = h('a', { class: 'download', download: 'energy.csv', href: '#' }, 'Download CSV');
  replace(
    container,
    h(
      'div',
      { class: 'chart-controls calendar' },
      h('label', { for: periodId }, 'Period'),
      periodSelect,
      h('label', { for: dateId }, 'Date'),
      dateInput,
      h('span', { class: 'stepper' }, prev, today, next),
    ),
    title,
    figures,
    bars,
    h(
      'p',
      { class: 'legend' },
      ...[...SOURCES, ...USES].map((k) => h('span', { class: `key ${CLASS[k]}` }, ENERGY_LABELS[k])),
    ),
    picked,
    table,
    download,
  );

  let view: View | null = null;
  let generation = 0;
  let csvUrl: string | null = null;
  const show = async () => {
    if (!view) return;
    const mine = ++generation;
    const v = view;
    const word = v.period;
    prev.setAttribute('aria-label', `Previous ${word}`);
    next.setAttribute('aria-label', `Next ${word}`);
    dateInput.value = isoDate(v.clock.zone, v.start);
    title.textContent = periodTitle(v);
    bars.setAttribute('aria-busy', 'true');
    onSelect(v.period, v.start, addPeriods(v.clock.zone, v.start, v.period, 1), v.clock.zone);
    const end = addPeriods(v.clock.zone, v.start, v.period, 1);
    const [energy, known] = await Promise.all([
      loadPeriodEnergy(v.clock, v.period, v.start),
      loadPrices({ from: v.start, to: end }),
    ]);
    if (stopped || mine !== generation) return;
    energyFigures(figures, energy, known);
    bars.removeAttribute('aria-busy');
    const pick = (i: number) => {
      picked.textContent = `${bucketLabel(v, energy.buckets[i]!, true)}: ${ENERGY_KINDS.map(
        (k) => `${ENERGY_LABELS[k].toLowerCase()} ${kwh(energy.table[k][i]!)}`,
      ).join(', ')}.`;
    };
    picked.textContent = 'Tap a bar for its figures; the table below lists them all.';
    replace(bars, drawBars(energy, pick));
    bars.dataset.buckets = String(energy.buckets.length);
    replace(
      table,
      h('summary', {}, 'Table'),
      h(
        'div',
        { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Energy table' },
        h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, v.period === 'day' ? 'Hour' : v.period === 'year' ? 'Month' : 'Day'),
              ENERGY_KINDS.map((k) => h('th', { scope: 'col' }, `${ENERGY_LABELS[k]} (kWh)`)),
            ),
          ),
          h(
            'tbody',
            {},
            energy.buckets.map((t, i) =>
              h(
                'tr',
                {},
                h('th', { scope: 'row' }, bucketLabel(v, t, true)),
                ENERGY_KINDS.map((k) => h('td', {}, formatNumber(energy.table[k][i]!, 2))),
              ),
            ),
          ),
        ),
      ),
    );
    if (csvUrl) URL.revokeObjectURL(csvUrl);
    csvUrl = URL.createObjectURL(new Blob([energyCsv(energy, v.clock.zone)], { type: 'text/csv' }));
    download.href = csvUrl;
    download.setAttribute('download', `energy-${v.period}-${isoDate(v.clock.zone, v.start)}.csv`);
  };
  const go = (period: Period, at: number) => {
    if (!view) return;
    view = { ...view, period, start: periodStart(view.clock.zone, at, period) };
    void show();
  };
  periodSelect.addEventListener('change', () => view && go(periodSelect.value as Period, view.start));
  dateInput.addEventListener('change', () => {
    if (!view) return;
    const at = fromIsoDate(view.clock.zone, dateInput.value);
    if (at !== null) go(view.period, at);
  });
  prev.addEventListener(
    'click',
    () => view && go(view.period, addPeriods(view.clock.zone, view.start, view.period, -1)),
  );
  next.addEventListener(
    'click',
    () => view && go(view.period, addPeriods(view.clock.zone, view.start, view.period, 1)),
  );
  today.addEventListener('click', () => view && go(view.period, Date.now()));
  void loadSiteClock().then((clock) => {
    if (stopped) return;
    view = { clock, period: 'day', start: periodStart(clock.zone, Date.now(), 'day') };
    void show();
  });
  return () => {
    stopped = true;
    if (csvUrl) URL.revokeObjectURL(csvUrl);
  };
}
