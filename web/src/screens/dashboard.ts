// The first screen: power flow now, energy today, energy by calendar period (bars, table,
// CSV), the power chart of the period chosen there, and the price schedule.

import { errorText } from '../api/client.js';
import { drawChart, loadChartData, type Agg, type RangeId } from '../charts/chart.js';
import { card, h, replace } from '../ui/dom.js';
import { loadPeriodEnergy, loadSiteClock, RequestCache } from '../state/energy-data.js';
import { energyFigures } from '../cards/energy-view.js';
import { mountEnergyHistory } from '../cards/energy-history.js';
import { mountPowerFlow } from '../charts/flow.js';
import { mountLoadpoints } from '../cards/loadpoint.js';
import { periodStart } from '../state/zone.js';
import { mountPlan } from '../cards/plan.js';
import { mountPrices } from '../cards/prices.js';
import { mountProgressNotice } from '../notices/progress-notice.js';
import type { ScreenContext } from '../state/screen-context.js';
import type { LiveStore } from '../state/live.js';
import { mountStaleNotice } from '../notices/stale.js';

/** The alerts the owner set up (Site tab), live from system/alerts. */
function mountAlerts(alerts: HTMLElement, live: LiveStore): () => void {
  return live.subscribe((changed) => {
    if (!changed.has('system/alerts')) return;
    const text = live.value('system/alerts');
    alerts.hidden = typeof text !== 'string' || text === '';
    alerts.textContent = alerts.hidden ? '' : `Alert: ${String(text)}.`;
  });
}

interface Shown {
  range: RangeId;
  from: number;
  to: number;
  zone: string;
}

/** The power chart of the period the energy calendar shows, with its choice of values (average, highest, lowest). */
function powerChart(): { parts: HTMLElement[]; show(shown: Shown): void; reload(): void; stop(): void } {
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
  let unmountChart: (() => void) | null = null;
  let generation = 0;
  let shown: Shown | null = null;
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
  aggSelect.addEventListener('change', () => void loadChart());
  return {
    parts: [controls, chartBox, chartHint],
    show(period) {
      shown = period;
      void loadChart();
    },
    reload: () => void loadChart(),
    stop() {
      generation += 1;
      unmountChart?.();
    },
  };
}

export function mountDashboard(container: HTMLElement, ctx: ScreenContext): () => void {
  const stops: Array<() => void> = [];
  const stale = h('div', { class: 'stale-notice' });
  // A plugin's long task (the demo's backfill): its progress while it runs.
  const progress = h('div', { class: 'progress-notice' });
  // The alerts the owner set up (Site tab), live from system/alerts.
  const alerts = h('p', { class: 'message warn alerts', role: 'status', hidden: true });
  stops.push(mountAlerts(alerts, ctx.live));
  const flow = h('div', { class: 'flow-box' });
  const energy = h('dl', { class: 'energy', 'aria-busy': 'true' });
  const power = powerChart();
  const energyTitle = h('h3', { id: 'energy-title' }, 'Energy today');
  const history = h('div', { class: 'energy-history' });
  const prices = h('div', { class: 'prices' }, h('p', { class: 'hint' }, 'Loading prices…'));
  const plan = h('div', { class: 'plan' });
  const loadpoints = h('div', { class: 'loadpoints' });
  const chargers = card('Car charging', 'loadpoints-card', loadpoints);
  chargers.hidden = true;
  replace(
    container,
    alerts,
    progress,
    stale,
    h(
      'div',
      { class: 'dashboard-top' },
      card('Power now', 'flow', flow),
      h('section', { class: 'card', 'aria-labelledby': 'energy-title', id: 'energy-card' }, energyTitle, energy),
    ),
    card('Energy history', 'history', history),
    card('Power', 'power', ...power.parts),
    card('Grid prices', 'prices', prices),
    card('Battery plan', 'plan', plan),
    chargers,
  );
  stops.push(mountLoadpoints(loadpoints, chargers, ctx.live));
  stops.push(mountPowerFlow(flow, ctx.live));
  stops.push(mountStaleNotice(stale, ctx));
  // Each figure once per view: "Energy today" and the calendar's first day are one answer.
  const cache = new RequestCache();
  void mountPrices(prices, Date.now, cache);
  stops.push(mountPlan(plan, ctx.live, cache));

  // Energy today: the service's hours of today in the site's zone, with their money.
  let stopped = false;
  const loadToday = async (from: RequestCache) => {
    const clock = await loadSiteClock();
    try {
      const today = await loadPeriodEnergy(clock, 'day', periodStart(clock.zone, Date.now(), 'day'), from);
      if (stopped) return;
      energyFigures(energy, today);
    } catch (err) {
      if (stopped) return;
      replace(energy, h('div', {}, h('dt', {}, 'Energy'), h('dd', {}, `could not be loaded: ${errorText(err)}`)));
    }
    energy.removeAttribute('aria-busy');
  };
  void loadToday(cache);

  stops.push(
    mountEnergyHistory(history, (period, from, to, zone) => power.show({ range: period, from, to, zone }), cache),
  );
  // A backfill that ends has filled in the past: today's figures and the chart again, afresh.
  stops.push(
    mountProgressNotice(progress, ctx.statuses, () => {
      void loadToday(new RequestCache());
      power.reload();
    }),
  );
  return () => {
    stopped = true;
    power.stop();
    for (const stop of stops) stop();
  };
}
