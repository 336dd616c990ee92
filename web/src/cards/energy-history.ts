// The energy calendar card: pick a day, week, month or year by date (or step with previous
// and next); its figures, bars, table and CSV (drawn by energy-view.ts) follow, and so does
// the power chart the card's owner draws beside it.

import { errorText } from '../api/client.js';
import { h, replace, uid } from '../ui/dom.js';
import { ENERGY_KINDS, type BucketMoney } from '../state/energy.js';
import { loadPeriodEnergy, loadSiteClock, RequestCache, type PeriodEnergy } from '../state/energy-data.js';
import { formatNumber } from '../ui/format.js';
import { addPeriods, fromIsoDate, isoDate, periodStart, type Period } from '../state/zone.js';
import {
  bucketLabel,
  drawBars,
  ENERGY_LABELS,
  energyCsv,
  energyFigures,
  energyLegend,
  kwh,
  money,
  NO_DATA,
  periodTitle,
  type View,
} from './energy-view.js';

/** A bucket's net cost, or "—" where it has no price (or no data). */
function netCost(m: BucketMoney | null, currency: string): string {
  return m === null || m.pricedHours === 0 ? '—' : money(m.netCost, currency);
}

/** The period's figures as a table: one row per bucket, kWh of each kind, and the net cost where priced. */
function energyTable(energy: PeriodEnergy, period: Period, zoneOf: (i: number) => string): HTMLElement {
  return h(
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
          h('th', { scope: 'col' }, period === 'day' ? 'Hour' : period === 'year' ? 'Month' : 'Day'),
          ENERGY_KINDS.map((k) => h('th', { scope: 'col' }, `${ENERGY_LABELS[k]} (kWh)`)),
          energy.currency ? h('th', { scope: 'col' }, `Net cost (${energy.currency})`) : null,
        ),
      ),
      h(
        'tbody',
        {},
        energy.buckets.map((t, i) =>
          h(
            'tr',
            { 'data-from': energy.keys[i] },
            h('th', { scope: 'row' }, bucketLabel(period, t, zoneOf(i), true)),
            ENERGY_KINDS.map((k) => {
              const cell = energy.table[k][i]!;
              return cell === null ? h('td', { class: 'no-data' }, NO_DATA) : h('td', {}, formatNumber(cell, 2));
            }),
            energy.currency ? h('td', {}, netCost(energy.money[i]!, energy.currency)) : null,
          ),
        ),
      ),
    ),
  );
}

/** The calendar's controls: period, date, and previous / today / next. */
function calendarControls() {
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
  const element = h(
    'div',
    { class: 'chart-controls calendar' },
    h('label', { for: periodId }, 'Period'),
    periodSelect,
    h('label', { for: dateId }, 'Date'),
    dateInput,
    h('span', { class: 'stepper' }, prev, today, next),
  );
  return { element, periodSelect, dateInput, prev, next, today };
}

/** Where the figures of the period shown go. */
interface Slots {
  title: HTMLElement;
  figures: HTMLElement;
  bars: HTMLElement;
  picked: HTMLElement;
  table: HTMLElement;
  download: HTMLAnchorElement;
}

/** The loaded period in its slots: figures, bars (a tap tells a bar's figures in words), table and CSV link. */
function showEnergy({ figures, bars, picked, table, download }: Slots, v: View, energy: PeriodEnergy): string {
  energyFigures(figures, energy);
  bars.removeAttribute('aria-busy');
  const zoneOf = (i: number) => energy.zones[i] ?? v.clock.zone;
  const pick = (i: number) => {
    const label = bucketLabel(v.period, energy.buckets[i]!, zoneOf(i), true);
    picked.textContent = ENERGY_KINDS.every((k) => energy.table[k][i] === null)
      ? `${label}: ${NO_DATA}.`
      : `${label}: ${ENERGY_KINDS.map((k) => `${ENERGY_LABELS[k].toLowerCase()} ${kwh(energy.table[k][i]!)}`).join(', ')}.`;
  };
  picked.textContent = 'Tap a bar for its figures; the table below lists them all.';
  replace(bars, drawBars(energy, v.clock.zone, pick));
  bars.dataset.buckets = String(energy.buckets.length);
  replace(table, h('summary', {}, 'Table'), energyTable(energy, v.period, zoneOf));
  const csvUrl = URL.createObjectURL(new Blob([energyCsv(energy, v.clock.zone)], { type: 'text/csv' }));
  download.href = csvUrl;
  download.setAttribute('download', `energy-${v.period}-${isoDate(v.clock.zone, v.start)}.csv`);
  return csvUrl;
}

/**
 * Mounts the calendar energy view; `onSelect` hears every period chosen (the power chart
 * follows it). Returns how to stop.
 */
export function mountEnergyHistory(
  container: HTMLElement,
  onSelect: (period: Period, start: number, end: number, zone: string) => void,
  cache = new RequestCache(),
): () => void {
  let stopped = false;
  const controls = calendarControls();
  const { periodSelect, dateInput, prev, next, today } = controls;
  const slots: Slots = {
    title: h('p', { class: 'period-title', 'aria-live': 'polite' }),
    figures: h('dl', { class: 'energy' }),
    bars: h('div', { class: 'bars-box', 'aria-busy': 'true' }),
    picked: h('p', { class: 'hint bar-detail', 'aria-live': 'polite' }),
    table: h('details', { class: 'energy-table' }),
    download: h('a', { class: 'download', download: 'energy.csv', href: '#' }, 'Download CSV'),
  };
  const { title, figures, bars, picked, table, download } = slots;
  replace(container, controls.element, title, figures, bars, energyLegend(), picked, table, download);

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
    let energy: PeriodEnergy;
    try {
      energy = await loadPeriodEnergy(v.clock, v.period, v.start, cache);
    } catch (err) {
      if (stopped || mine !== generation) return;
      replace(figures);
      bars.removeAttribute('aria-busy');
      replace(bars, h('p', { class: 'message error' }, `Energy could not be loaded: ${errorText(err)}`));
      return;
    }
    if (stopped || mine !== generation) return;
    if (csvUrl) URL.revokeObjectURL(csvUrl);
    csvUrl = showEnergy(slots, v, energy);
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
