// The battery planner's card: the plan ahead (import price, planned state of charge and
// battery power from /forecast, the actions as blocks with their reasons) and the switch
// between dry-run and active. Shown only when a planner runs.

import uPlot from 'uplot';
import { api, errorText } from './api.js';
import { compactLegend } from './chart.js';
import { h, replace, showMessage } from './dom.js';
import { formatNumber, formatQuantity } from './format.js';
import type { LiveStore } from './live.js';

interface ForecastAnswer {
  topic: string;
  unit: string;
  points: Array<[string, number]>;
}

const MODES = ['Normal', 'Hold', 'Charge', 'Discharge'] as const;

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

/** Consecutive slots of one mode: "Charge 02:00–04:00" and the first slot's reason. */
function blocks(times: number[], modes: number[]): Array<{ from: number; to: number; mode: string }> {
  const out: Array<{ from: number; to: number; mode: string }> = [];
  times.forEach((t, i) => {
    const mode = MODES[modes[i] ?? 0] ?? 'Normal';
    const last = out[out.length - 1];
    if (last && last.mode === mode) last.to = t + 15 * 60_000;
    else out.push({ from: t, to: t + 15 * 60_000, mode });
  });
  return out;
}

const hm = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

function draw(box: HTMLElement, times: number[], price: number[], soc: number[], battery: number[]): () => void {
  const width = () => Math.max(240, box.clientWidth);
  const opts: uPlot.Options = {
    width: width(),
    height: 240,
    scales: { x: { time: true }, '%': { range: [0, 100] } },
    series: [
      {},
      {
        label: 'Price',
        stroke: '#b45f00',
        width: 1.5,
        scale: 'price',
        paths: uPlot.paths.stepped!({ align: 1 }),
        value: (_u, v) => (v === null ? '—' : formatNumber(v, 3)),
      },
      {
        label: 'Planned charge',
        stroke: '#8a3ffc',
        width: 2,
        scale: '%',
        value: (_u, v) => (v === null ? '—' : `${formatNumber(v, 0)} %`),
      },
      {
        label: 'Battery (+ discharging)',
        stroke: '#1a7f37',
        width: 1.5,
        scale: 'W',
        value: (_u, v) => (v === null ? '—' : formatQuantity(v, 'W')),
      },
    ],
    axes: [
      { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.2)' } },
      {
        scale: 'price',
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
    ],
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
  };
  const plot = new uPlot(opts, [times.map((t) => t / 1000), price, soc, battery], box);
  compactLegend(plot, 'Plan chart legend: tap an entry to hide or show its line');
  const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 240 }));
  observer.observe(box);
  return () => {
    observer.disconnect();
    plot.destroy();
  };
}

/** Mounts the planner card's content into `container`; returns its unmount. */
export function mountPlan(container: HTMLElement, live: LiveStore): () => void {
  const status = h('p', { class: 'plan-status', 'aria-live': 'polite' });
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
  replace(container, status, switchRow, chartBox, actions);
  let device: string | null = null;
  let unmountChart: (() => void) | null = null;
  let loadedFor = '';
  // While a change is being saved, live updates do not put the switch back to the mode in force.
  let saving = false;

  toggle.addEventListener('change', () => {
    if (!device) return;
    const value = toggle.checked ? 'active' : 'dry-run';
    saving = true;
    showMessage(message, 'info', 'Saving…');
    api('POST', '/metrics', { body: { topic: `${device}/mode`, value } })
      .then(() => showMessage(message, 'ok', `Planner ${value}.`))
      .catch((err: unknown) => {
        toggle.checked = !toggle.checked;
        showMessage(message, 'error', `Not saved: ${errorText(err)}`);
      })
      .finally(() => (saving = false));
  });

  const load = async (dev: string) => {
    const [price, soc, battery, mode] = await Promise.all(
      ['import_price_planned', 'soc_planned', 'battery_power_planned', 'mode_planned'].map((n) =>
        series(`${dev}/${n}`),
      ),
    );
    if (!soc || soc.points.length === 0) {
      replace(chartBox, h('p', { class: 'hint' }, 'No plan yet.'));
      replace(actions);
      return;
    }
    const times = soc.points.map(([t]) => Date.parse(t));
    const at = (s: ForecastAnswer | null | undefined) => {
      const m = new Map((s?.points ?? []).map(([t, v]) => [Date.parse(t), v]));
      return times.map((t) => m.get(t) ?? 0);
    };
    unmountChart?.();
    chartBox.replaceChildren();
    chartBox.dataset.points = String(times.length);
    unmountChart = draw(chartBox, times, at(price), at(soc), at(battery));
    replace(
      actions,
      blocks(times, at(mode)).map((b) =>
        h('li', { 'data-mode': b.mode.toLowerCase() }, `${b.mode} ${hm(b.from)}–${hm(b.to)}`),
      ),
    );
  };

  const stop = live.subscribe(() => {
    device = plannerDevice(live);
    if (!device) {
      container.closest('section')?.setAttribute('hidden', '');
      return;
    }
    container.closest('section')?.removeAttribute('hidden');
    if (!saving) toggle.checked = live.value(`${device}/mode`) === 'active';
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
