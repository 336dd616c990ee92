// The battery planner's card: what the battery does next and why, in words; the estimated
// saving; the plan ahead (import price, planned state of charge and battery power from
// /forecast, each on its own labelled axis, the actions as blocks) and the switch between
// dry-run and active. Times and day names are the site's (its zone from /config), not the
// browser's. Shown only when a planner runs.

import uPlot from 'uplot';
import { api, errorText } from '../api/client.js';
import { compactLegend } from '../charts/chart.js';
import { timeTicks } from '../charts/chart-scale.js';
import { h, replace, showMessage } from '../ui/dom.js';
import { loadSiteClock, RequestCache } from '../state/energy-data.js';
import { money } from './energy-view.js';
import { formatNumber, formatQuantity } from '../ui/format.js';
import type { LiveStore } from '../state/live.js';
import type { GridAnswer } from '../api/types.js';
import { isoDate } from '../state/zone.js';

interface ForecastAnswer {
  topic: string;
  unit: string;
  points: Array<[string, number]>;
}

/** The planner's modes by the codes of its `planned_battery_mode` series (0..3), by identifier. */
const MODES = ['normal', 'hold', 'charge', 'discharge'] as const;
type Mode = (typeof MODES)[number];

/** How the page names a mode: the battery control's labels as the API shows them. */
const LABEL: Record<Mode, string> = { normal: 'Normal', hold: 'Hold', charge: 'Charge', discharge: 'Discharge' };

/** The planner's device: the one whose `mode` setting offers dry-run and active. */
export function plannerDevice(live: LiveStore): string | null {
  for (const [topic, entry] of live.entries) {
    const w = entry.writable;
    if (topic.endsWith('/mode') && w && 'options' in w && w.options.includes('dry-run') && w.options.includes('active'))
      return topic.slice(0, topic.indexOf('/'));
  }
  return null;
}

async function series(topic: string): Promise<ForecastAnswer | null> {
  const from = new Date(Date.now() - 15 * 60_000).toISOString();
  return api<ForecastAnswer>('GET', `/forecast?${new URLSearchParams({ topic, from })}`).catch(() => null);
}

/** Consecutive slots of one mode, with the lowest and highest import price in them. */
export interface Block {
  from: number;
  to: number;
  mode: Mode;
  minPrice: number;
  maxPrice: number;
}

export function blocks(times: number[], modes: number[], prices: number[]): Block[] {
  const out: Block[] = [];
  times.forEach((t, i) => {
    const mode = MODES[modes[i] ?? 0] ?? 'normal';
    const price = prices[i] ?? 0;
    const last = out[out.length - 1];
    if (last && last.mode === mode) {
      last.to = t + 15 * 60_000;
      last.minPrice = Math.min(last.minPrice, price);
      last.maxPrice = Math.max(last.maxPrice, price);
    } else out.push({ from: t, to: t + 15 * 60_000, mode, minPrice: price, maxPrice: price });
  });
  return out;
}

/** How the page says times: the site's zone, the day's name when it is not today's. */
export function siteTime(zone: string, now: number): (ms: number) => string {
  const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZone: zone });
  const day = new Intl.DateTimeFormat(undefined, { weekday: 'long', timeZone: zone });
  const today = isoDate(zone, now);
  return (ms) => (isoDate(zone, ms) === today ? time.format(ms) : `${day.format(ms)} ${time.format(ms)}`);
}

const DOING = {
  charge: 'Charging from the grid',
  discharge: 'Discharging to cover the house',
  hold: 'Holding the charge',
  normal: 'Running by itself (charging from surplus sun, covering the house)',
} as const;

const THEN = {
  charge: 'charging from the grid',
  discharge: 'discharging',
  hold: 'holding the charge',
  normal: 'running by itself',
} as const;

/**
 * What the battery does next and why, in words: "Charging from the grid until 05:00 (0.08
 * EUR/kWh, the cheapest ahead); then holding the charge for Tuesday 18:00 (0.31 EUR/kWh)".
 */
export function nextActionWords(plan: Block[], when: (ms: number) => string, unit: string): string {
  const [now, next] = plan;
  if (!now) return 'No plan yet.';
  const price = (p: number) => `${formatNumber(p, 2)} ${unit}`;
  const cheapest = Math.min(...plan.map((b) => b.minPrice));
  const dearest = Math.max(...plan.map((b) => b.maxPrice));
  const why =
    now.mode === 'charge'
      ? ` (${price(now.minPrice)}${now.minPrice <= cheapest ? ', the cheapest ahead' : ''})`
      : now.mode === 'discharge'
        ? ` (${price(now.maxPrice)}${now.maxPrice >= dearest ? ', the dearest ahead' : ''})`
        : '';
  let words = next ? `${DOING[now.mode]} until ${when(now.to)}${why}` : `${DOING[now.mode]}${why} to the plan's end`;
  if (next) {
    // Held or charged for what: the next discharge and its price.
    const use = plan.slice(1).find((b) => b.mode === 'discharge');
    const purpose =
      (next.mode === 'hold' || next.mode === 'charge') && use
        ? ` for ${when(use.from)} (${price(use.maxPrice)})`
        : next.mode === 'discharge'
          ? ` at ${price(next.maxPrice)}`
          : '';
    words += `; then ${THEN[next.mode]}${purpose}`;
  }
  return `${words}.`;
}

/** The chart's lines and axes: times in the site's zone, the price in its unit, the battery's power. */
function chartOptions(zone: string, unit: string, width: number): uPlot.Options {
  return {
    width,
    height: 240,
    scales: { x: { time: true }, '%': { range: [0, 100] } },
    // Ticks fall on the site's hours and midnights, not the browser's.
    tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), zone),
    series: [
      { value: (_u, v) => (v === null ? '—' : siteTime(zone, Date.now())(v * 1000)) },
      {
        label: `Price (${unit})`,
        stroke: '#b45f00',
        width: 1.5,
        scale: 'price',
        paths: uPlot.paths.stepped!({ align: 1 }),
        value: (_u, v) => (v === null ? '—' : `${formatNumber(v, 3)} ${unit}`),
      },
      {
        label: 'Planned charge',
        stroke: '#8a3ffc',
        width: 2,
        scale: '%',
        value: (_u, v) => (v === null ? '—' : `${formatNumber(v, 0)} %`),
      },
      {
        label: 'Battery power (+ discharging)',
        stroke: '#1a7f37',
        width: 1.5,
        scale: 'W',
        value: (_u, v) => (v === null ? '—' : formatQuantity(v, 'W')),
      },
    ],
    axes: [
      {
        stroke: 'currentColor',
        grid: { stroke: 'rgba(128,128,128,0.2)' },
        values: (u, t) => timeTicks(t, (u.scales.x!.max ?? 0) - (u.scales.x!.min ?? 0), zone),
      },
      {
        scale: 'price',
        label: unit,
        stroke: 'currentColor',
        size: 56,
        values: (_u, t) => t.map((v) => formatNumber(v, 2)),
        grid: { stroke: 'rgba(128,128,128,0.2)' },
      },
      {
        scale: '%',
        side: 1,
        stroke: 'currentColor',
        size: 48,
        values: (_u, t) => t.map((v) => `${v} %`),
        grid: { show: false },
      },
      {
        scale: 'W',
        side: 1,
        label: 'Battery power',
        stroke: '#1a7f37',
        size: 64,
        values: (_u, t) => t.map((v) => formatQuantity(v, 'W')),
        grid: { show: false },
      },
    ],
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
  };
}

function draw(
  box: HTMLElement,
  zone: string,
  unit: string,
  data: { times: number[]; price: number[]; soc: number[]; battery: number[] },
): () => void {
  const { times, price, soc, battery } = data;
  const width = () => Math.max(240, box.clientWidth);
  const opts = chartOptions(zone, unit, width());
  const plot = new uPlot(opts, [times.map((t) => t / 1000), price, soc, battery], box);
  // The axes' titles are drawn on the canvas: said here too, for tests and tools.
  box.dataset.axes = (opts.axes ?? []).map((a) => a.label ?? '').join('|');
  compactLegend(plot, 'Plan chart legend: tap an entry to hide or show its line');
  const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 240 }));
  observer.observe(box);
  return () => {
    observer.disconnect();
    plot.destroy();
  };
}

interface SiteInfo {
  zone: string;
  unit: string;
  currency: string;
}

/** The site's zone (the Site tab's) and the price book's unit and currency (the price card's /grid answer, asked once). */
function readSite(cache: RequestCache): Promise<SiteInfo> {
  return Promise.all([loadSiteClock(), cache.get<GridAnswer>('/grid').catch(() => null)]).then(([clock, grid]) => {
    const unit = grid?.pricing?.unit ?? '';
    return { zone: clock.zone, unit, currency: grid?.pricing?.currency ?? unit.split('/')[0] ?? '' };
  });
}

interface PlanSeries {
  times: number[];
  price: number[];
  soc: number[];
  battery: number[];
  mode: number[];
}

/** The plan's series from /forecast, aligned on the planned state of charge's times; null without a plan. */
async function loadPlan(dev: string): Promise<PlanSeries | null> {
  const [price, soc, battery, mode] = await Promise.all(
    ['import_price_planned', 'soc_planned', 'battery_power_planned', 'mode_planned'].map((n) => series(`${dev}/${n}`)),
  );
  if (!soc || soc.points.length === 0) return null;
  const times = soc.points.map(([t]) => Date.parse(t));
  const at = (s: ForecastAnswer | null | undefined) => {
    const m = new Map((s?.points ?? []).map(([t, v]) => [Date.parse(t), v]));
    return times.map((t) => m.get(t) ?? 0);
  };
  return { times, price: at(price), soc: at(soc), battery: at(battery), mode: at(mode) };
}

/** Shows the plan: its next action in words, the chart and the blocks; returns the chart's unmount. */
function renderPlan(
  parts: { chartBox: HTMLElement; actions: HTMLElement; next: HTMLElement },
  plan: PlanSeries | null,
  { zone, unit }: SiteInfo,
): () => void {
  const { chartBox, actions, next } = parts;
  if (!plan) {
    replace(chartBox, h('p', { class: 'hint' }, 'No plan yet.'));
    replace(actions);
    next.textContent = '';
    return () => undefined;
  }
  chartBox.replaceChildren();
  chartBox.dataset.points = String(plan.times.length);
  const unmount = draw(chartBox, zone, unit, plan);
  const planned = blocks(plan.times, plan.mode, plan.price);
  const when = siteTime(zone, Date.now());
  next.textContent = nextActionWords(planned, when, unit);
  replace(
    actions,
    planned.map((b) => h('li', { 'data-mode': b.mode }, `${LABEL[b.mode]} ${when(b.from)}–${when(b.to)}`)),
  );
  return unmount;
}

/** Mounts the planner card's content into `container`; returns its unmount. */
export function mountPlan(container: HTMLElement, live: LiveStore, cache = new RequestCache()): () => void {
  const status = h('p', { class: 'plan-status', 'aria-live': 'polite' });
  const next = h('p', { class: 'plan-next' });
  const saving = h('p', { class: 'plan-saving', hidden: true });
  const chartBox = h('div', { class: 'chart plan-chart' });
  const actions = h('ol', { class: 'plan-actions' });
  const toggle = h('input', { id: 'planner-active', type: 'checkbox', role: 'switch', class: 'switch' });
  const message = h('p', { class: 'message', hidden: true });
  const switchRow = h(
    'div',
    { class: 'setting switch-row' },
    toggle,
    h('label', { for: 'planner-active' }, 'Active: the planner commands the battery (off: dry-run, it only plans)'),
    message,
  );
  replace(container, next, saving, status, switchRow, chartBox, actions);
  let device: string | null = null;
  let unmountChart: (() => void) | null = null;
  let loadedFor = '';
  // While a change is being saved, live updates do not put the switch back to the mode in force.
  let savingMode = false;
  /** The site's zone and the price unit, read once. */
  let site: Promise<SiteInfo> | null = null;

  toggle.addEventListener('change', () => {
    if (!device) return;
    const value = toggle.checked ? 'active' : 'dry-run';
    savingMode = true;
    showMessage(message, 'info', 'Saving…');
    api('POST', '/metrics', { body: { topic: `${device}/mode`, value } })
      .then(() => showMessage(message, 'ok', `Planner ${value}.`))
      .catch((err: unknown) => {
        toggle.checked = !toggle.checked;
        showMessage(message, 'error', `Not saved: ${errorText(err)}`);
      })
      .finally(() => (savingMode = false));
  });

  const siteInfo = () => (site ??= readSite(cache));

  const load = async (dev: string) => {
    const [plan, info] = await Promise.all([loadPlan(dev), siteInfo()]);
    unmountChart?.();
    unmountChart = renderPlan({ chartBox, actions, next }, plan, info);
  };

  const showSaving = async (dev: string) => {
    const amount = live.value(`${dev}/saving_today`);
    if (typeof amount !== 'number') {
      saving.hidden = true;
      return;
    }
    const { currency } = await siteInfo();
    const say = (v: number) => (currency ? money(v, currency) : formatNumber(v, 2));
    const whole = live.value(`${dev}/saving_planned`);
    const plan = typeof whole === 'number' ? `, ${say(whole)} over the whole plan` : '';
    saving.textContent = `Estimated saving today: ${say(amount)}${plan} (against the battery left to itself)`;
    saving.hidden = false;
  };

  const stop = live.subscribe(() => {
    device = plannerDevice(live);
    if (!device) {
      container.closest('section')?.setAttribute('hidden', '');
      return;
    }
    container.closest('section')?.removeAttribute('hidden');
    if (!savingMode) toggle.checked = live.value(`${device}/mode`) === 'active';
    void showSaving(device);
    const reason = live.value(`${device}/reason`);
    status.textContent = [live.value(`${device}/status`), reason].filter((v) => typeof v === 'string' && v).join(' — ');
    // A new plan is published with a new solve time: load the series again then.
    const key = `${device}:${String(live.value(`${device}/solve_time`))}:${String(live.value(`${device}/planned_mode`))}`;
    if (key !== loadedFor) {
      loadedFor = key;
      void load(device);
    }
  });
  return () => {
    stop();
    unmountChart?.();
  };
}
