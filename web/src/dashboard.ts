// The first screen: power flow now, energy over the chosen range, the chart of that range
// and the price schedule.

import { drawChart, energyOf, loadChartData, RANGES, type Agg, type RangeId } from './chart.js';
import { h, replace } from './dom.js';
import { mountPowerFlow } from './flow.js';
import { formatQuantity } from './format.js';
import { mountPlan } from './plan.js';
import { mountPrices } from './prices.js';
import type { ScreenContext } from './screens.js';
import { mountStaleNotice } from './stale.js';

function card(title: string, id: string, ...content: HTMLElement[]): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': `${id}-title`, id },
    h('h3', { id: `${id}-title` }, title),
    ...content,
  );
}

export function mountDashboard(container: HTMLElement, ctx: ScreenContext): () => void {
  const stops: Array<() => void> = [];
  const stale = h('div', { class: 'stale-notice' });
  const flow = h('div', { class: 'flow-box' });
  const energy = h('dl', { class: 'energy' });
  const rangeSelect = h(
    'select',
    { id: 'chart-range' },
    Object.entries(RANGES).map(([id, r]) => h('option', { value: id }, r.label)),
  );
  const aggSelect = h(
    'select',
    { id: 'chart-agg' },
    h('option', { value: 'mean' }, 'Average'),
    h('option', { value: 'max' }, 'Highest'),
    h('option', { value: 'min' }, 'Lowest'),
  );
  const chartBox = h('div', { class: 'chart', 'aria-describedby': 'chart-hint' });
  const chartHint = h(
    'p',
    { class: 'hint', id: 'chart-hint' },
    'Power in W or kW (left), battery charge in % (right); the dashed line is the solar forecast.',
  );
  const controls = h(
    'div',
    { class: 'chart-controls' },
    h('label', { for: 'chart-range' }, 'Range'),
    rangeSelect,
    h('label', { for: 'chart-agg' }, 'Values'),
    aggSelect,
  );
  const energyTitle = h('h3', { id: 'energy-title' }, 'Energy today');
  const prices = h('div', { class: 'prices' }, h('p', { class: 'hint' }, 'Loading prices…'));
  const plan = h('div', { class: 'plan' });
  replace(
    container,
    stale,
    h(
      'div',
      { class: 'dashboard-top' },
      card('Power now', 'flow', flow),
      h('section', { class: 'card', 'aria-labelledby': 'energy-title', id: 'energy-card' }, energyTitle, energy),
    ),
    card('History', 'history', controls, chartBox, chartHint),
    card('Grid prices', 'prices', prices),
    card('Battery plan', 'plan', plan),
  );
  stops.push(mountPlan(plan, ctx.live));
  stops.push(mountPowerFlow(flow, ctx.live));
  stops.push(mountStaleNotice(stale, ctx));
  void mountPrices(prices);

  let unmountChart: (() => void) | null = null;
  let generation = 0;
  const loadChart = async () => {
    const range = rangeSelect.value as RangeId;
    const agg = aggSelect.value as Agg;
    const mine = ++generation;
    chartBox.setAttribute('aria-busy', 'true');
    const data = await loadChartData(range, agg);
    if (mine !== generation) return;
    unmountChart?.();
    chartBox.replaceChildren();
    chartBox.removeAttribute('aria-busy');
    chartBox.dataset.points = String(data.times.length);
    if (data.times.length === 0) {
      chartBox.append(h('p', { class: 'hint' }, 'No history recorded for this range yet.'));
      unmountChart = null;
    } else unmountChart = drawChart(chartBox, data, range);
    const e = energyOf(data);
    energyTitle.textContent = {
      day: 'Energy today',
      week: 'Energy, last 7 days',
      month: 'Energy, last 30 days',
      year: 'Energy, last 365 days',
    }[range];
    const kwh = (wh: number) => formatQuantity(wh, 'Wh');
    replace(
      energy,
      [
        ['Solar produced', kwh(e.pv)],
        ['Home used', kwh(e.load)],
        ['Bought from grid', kwh(e.import)],
        ['Sold to grid', kwh(e.export)],
        ['Battery charged', kwh(e.charge)],
        ['Battery discharged', kwh(e.discharge)],
      ].map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
    );
    if (agg !== 'mean')
      energy.append(h('p', { class: 'hint' }, 'Energy is computed from averages; choose "Average" for exact figures.'));
  };
  rangeSelect.addEventListener('change', () => void loadChart());
  aggSelect.addEventListener('change', () => void loadChart());
  void loadChart();
  return () => {
    generation += 1;
    unmountChart?.();
    for (const stop of stops) stop();
  };
}
