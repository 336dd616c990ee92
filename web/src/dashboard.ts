/* eslint-disable max-lines-per-function -- a view built in one closure (its DOM, state and handlers); to split into smaller parts */
// The first screen: power flow now, energy today, energy by calendar period (bars, table,
// CSV), the power chart of the period chosen there, and the price schedule.

import { errorText } from './api.js';
import { drawChart, loadChartData, type Agg, type RangeId } from './chart.js';
import { h, replace } from './dom.js';
import { loadPeriodEnergy, loadSiteClock, RequestCache } from './energy-data.js';
import { energyFigures, mountEnergyHistory } from './energy-view.js';
import { mountPowerFlow } from './flow.js';
import { periodStart } from './zone.js';
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
  // The alerts the owner set up (Site tab), live from system/alerts.
  const alerts = h('p', { class: 'message warn alerts', role: 'status', hidden: true });
  stops.push(
    ctx.live.subscribe((changed) => {
      if (!changed.has('system/alerts')) return;
      const text = ctx.live.value('system/alerts');
      alerts.hidden = typeof text !== 'string' || text === '';
      alerts.textContent = alerts.hidden ? '' : `Alert: ${String(text)}.`;
    }),
  );
  const flow = h('div', { class: 'flow-box' });
  const energy = h('dl', { class: 'energy', 'aria-busy': 'true' });
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
  const controls = h('div', { class: 'chart-controls' }, h('label', { for: 'chart-agg' }, 'Values'), aggSelect);
  const energyTitle = h('h3', { id: 'energy-title' }, 'Energy today');
  const history = h('div', { class: 'energy-history' });
  const prices = h('div', { class: 'prices' }, h('p', { class: 'hint' }, 'Loading prices…'));
  const plan = h('div', { class: 'plan' });
  replace(
    container,
    alerts,
    stale,
    h(
      'div',
      { class: 'dashboard-top' },
      card('Power now', 'flow', flow),
      h('section', { class: 'card', 'aria-labelledby': 'energy-title', id: 'energy-card' }, energyTitle, energy),
    ),
    card('Energy history', 'history', history),
    card('Power', 'power', controls, chartBox, chartHint),
    card('Grid prices', 'prices', prices),
    card('Battery plan', 'plan', plan),
  );
  stops.push(mountPlan(plan, ctx.live));
  stops.push(mountPowerFlow(flow, ctx.live));
  stops.push(mountStaleNotice(stale, ctx));
  // Each figure once per view: "Energy today" and the calendar's first day are one answer.
  const cache = new RequestCache();
  void mountPrices(prices);

  // Energy today: the service's hours of today in the site's zone, with their money.
  let stopped = false;
  void (async () => {
    const clock = await loadSiteClock();
    try {
      const today = await loadPeriodEnergy(clock, 'day', periodStart(clock.zone, Date.now(), 'day'), cache);
      if (stopped) return;
      energyFigures(energy, today);
    } catch (err) {
      if (stopped) return;
      replace(energy, h('div', {}, h('dt', {}, 'Energy'), h('dd', {}, `could not be loaded: ${errorText(err)}`)));
    }
    energy.removeAttribute('aria-busy');
  })();

  let unmountChart: (() => void) | null = null;
  let generation = 0;
  let shown: { range: RangeId; from: number; to: number; zone: string } | null = null;
  const loadChart = async () => {
    if (!shown) return;
    const { range, zone } = shown;
    const agg = aggSelect.value as Agg;
    const mine = ++generation;
    chartBox.setAttribute('aria-busy', 'true');
    const data = await loadChartData(range, agg, new Date(), shown);
    if (mine !== generation) return;
    unmountChart?.();
    chartBox.replaceChildren();
    chartBox.removeAttribute('aria-busy');
    chartBox.dataset.points = String(data.times.length);
    if (data.times.length === 0) {
      chartBox.append(h('p', { class: 'hint' }, 'No history recorded for this period.'));
      unmountChart = null;
    } else unmountChart = drawChart(chartBox, data, range, zone);
  };
  stops.push(
    mountEnergyHistory(
      history,
      (period, from, to, zone) => {
        shown = { range: period, from, to, zone };
        void loadChart();
      },
      cache,
    ),
  );
  aggSelect.addEventListener('change', () => void loadChart());
  return () => {
    stopped = true;
    generation += 1;
    unmountChart?.();
    for (const stop of stops) stop();
  };
}
