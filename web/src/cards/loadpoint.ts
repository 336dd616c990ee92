// The EV chargers' card, one loadpoint per `charger_N` device (the ocpp plugin), as evcc
// shows a loadpoint: what the charger does now (status, power, the session's energy, the
// current and phases), why (the rules' reason in words), what the plan says, and the mode,
// changeable. Hidden while no charger is configured.

import { h, replace } from '../ui/dom.js';
import { formatQuantity } from '../ui/format.js';
import type { LiveStore } from '../state/live.js';
import { settingControl } from '../forms/setting-control.js';

/** The charger devices: those whose `mode` setting offers the charging modes. */
export function chargerDevices(live: LiveStore): string[] {
  const out: string[] = [];
  for (const [topic, entry] of live.entries) {
    const w = entry.writable;
    if (topic.endsWith('/mode') && w && 'options' in w && w.options.includes('min+pv') && w.options.includes('pv'))
      out.push(topic.slice(0, topic.indexOf('/')));
  }
  return out.sort();
}

/** What the charger does now, in one line: "Charging: 7.4 kW, 3.2 kWh this session". */
export function doingNow(live: LiveStore, device: string): string {
  const v = (name: string) => live.value(`${device}/${name}`);
  const status = typeof v('status') === 'string' ? String(v('status')) : 'Unknown';
  const parts = [status];
  const power = v('power');
  if (typeof power === 'number' && power > 0) parts.push(formatQuantity(power, 'W'));
  const session = v('session_energy');
  if (typeof session === 'number') parts.push(`${formatQuantity(session, 'kWh')} this session`);
  const limit = v('current_limit');
  const phases = v('active_phases');
  if (typeof limit === 'number')
    parts.push(`limit ${limit} A${typeof phases === 'number' ? ` on ${phases} phase${phases === 1 ? '' : 's'}` : ''}`);
  const soc = v('vehicle_soc');
  if (typeof soc === 'number') parts.push(`car at ${Math.round(soc)} %`);
  return parts.join(' · ');
}

interface Loadpoint {
  element: HTMLElement;
  update(): void;
}

function loadpoint(live: LiveStore, device: string): Loadpoint {
  const name = device.replace('_', ' ').replace(/^./, (c) => c.toUpperCase());
  const title = h('h4', {}, name);
  const now = h('p', { class: 'loadpoint-now', 'aria-live': 'polite' });
  const reason = h('p', { class: 'loadpoint-reason' });
  const plan = h('p', { class: 'loadpoint-plan hint' });
  const modeEntry = live.get(`${device}/mode`)!;
  const mode = settingControl(modeEntry, name);
  const element = h('div', { class: 'loadpoint', 'data-device': device }, title, now, reason, plan, mode.element);
  return {
    element,
    update() {
      now.textContent = doingNow(live, device);
      const why = live.value(`${device}/reason`);
      reason.textContent = typeof why === 'string' ? `Why: ${why}` : '';
      const target = live.value(`${device}/plan`);
      plan.textContent = typeof target === 'string' ? `Plan: ${target}` : '';
      const entry = live.get(`${device}/mode`);
      if (entry) mode.update(entry);
    },
  };
}

/** Mounts the chargers' loadpoints into `container` (the card), hiding `card` while there are none. */
export function mountLoadpoints(container: HTMLElement, card: HTMLElement, live: LiveStore): () => void {
  const shown = new Map<string, Loadpoint>();
  return live.subscribe((changed) => {
    const devices = chargerDevices(live);
    if (devices.join() !== [...shown.keys()].join()) {
      shown.clear();
      for (const device of devices) shown.set(device, loadpoint(live, device));
      replace(container, ...[...shown.values()].map((l) => l.element));
    }
    card.hidden = devices.length === 0;
    for (const [device, l] of shown) if ([...changed].some((t) => t.startsWith(`${device}/`))) l.update();
  });
}
