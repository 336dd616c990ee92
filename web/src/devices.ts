/* eslint-disable max-lines-per-function -- a view built in one closure (its DOM, state and handlers); to split into smaller parts */
// One card per device: what it is (model, serial, firmware) apart from what it reads now,
// its writable settings with controls that fit their type, and, when it stopped answering,
// why and since when.

import { h, replace } from './dom.js';
import { loadPeriodEnergy, loadSiteClock } from './energy-data.js';
import { totalsOf, type EnergyKind } from './energy.js';
import { NO_DATA } from './energy-view.js';
import { formatQuantity, formatReading } from './format.js';
import { periodStart } from './zone.js';
import { isDeviceStale } from './plugin-statuses.js';
import type { ScreenContext } from './screens.js';
import { settingControl } from './setting-control.js';
import { staleInfo } from './stale.js';
import { deviceKey, deviceTitle } from './types.js';
import type { LiveEntry } from './live.js';

/** The site's kWh totals, by the energy figure each is. */
const TOTAL_KINDS: Record<string, EnergyKind> = {
  'total/pv_energy': 'pv',
  'total/load_energy': 'load',
  'total/grid_energy_in': 'import',
  'total/grid_energy_out': 'export',
  'total/battery_energy_in': 'charge',
  'total/battery_energy_out': 'discharge',
};

const ORDER = ['total', 'inverter', 'battery', 'weather', 'system'];

/** A device's place: by kind (a plugin's own kinds, `ev_charger_1`, after the known ones), then number. */
function deviceOrder(key: string): [number, number] {
  const match = /^(.*)_(\d+)$/.exec(key);
  const index = ORDER.indexOf(match ? match[1]! : key);
  return [index < 0 ? ORDER.length : index, match ? Number(match[2]) : 0];
}

export function mountDevices(container: HTMLElement, ctx: ScreenContext): () => void {
  const grid = h('div', { class: 'device-grid' });
  replace(container, grid);
  const cells = new Map<string, HTMLElement>();
  const settings = new Map<string, (entry: LiveEntry) => void>();
  const staleSlots = new Map<string, HTMLElement>();
  let layout = '';
  // The site's kWh totals show today's energy from the service's per-period answer, the
  // same figures as the Overview's "Energy today" (the raw counters restart at a reset
  // period the owner may have changed since; they would disagree with the Overview).
  const todayCells = new Map<string, HTMLElement>();
  let today: Record<EnergyKind, number | null> | null = null;
  const showToday = () => {
    for (const [topic, cell] of todayCells) {
      const kind = TOTAL_KINDS[topic]!;
      const value = today ? today[kind] : undefined;
      cell.textContent = value === undefined ? '…' : value === null ? NO_DATA : formatQuantity(value, 'kWh');
    }
  };
  void loadSiteClock()
    .then((clock) => loadPeriodEnergy(clock, 'day', periodStart(clock.zone, Date.now(), 'day')))
    .then((energy) => {
      today = totalsOf(energy.table);
      showToday();
    })
    .catch(() => {
      today = { pv: null, load: null, import: null, export: null, charge: null, discharge: null };
      showToday();
    });

  const build = () => {
    todayCells.clear();
    cells.clear();
    settings.clear();
    staleSlots.clear();
    const groups = new Map<string, LiveEntry[]>();
    for (const entry of ctx.live.entries.values()) {
      const key = deviceKey(entry.topic);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)!.push(entry);
    }
    const keys = [...groups.keys()].sort((a, b) => {
      const [ka, na] = deviceOrder(a);
      const [kb, nb] = deviceOrder(b);
      return ka - kb || na - nb || a.localeCompare(b);
    });
    if (keys.length === 0) {
      replace(grid, h('p', {}, 'No devices yet: no plugin has declared any. Add one under Plugins.'));
      return;
    }
    replace(
      grid,
      keys.map((key) => {
        const entries = groups.get(key)!.sort((a, b) => a.topic.localeCompare(b.topic));
        const info = entries.filter((e) => e.group === 'Info');
        const readings = entries.filter((e) => e.group !== 'Info' && !e.writable);
        const writable = entries.filter((e) => e.writable);
        const titleId = `device-${key}`;
        const stale = h('div', { class: 'stale-slot' });
        staleSlots.set(key, stale);
        return h(
          'article',
          { class: 'card device', 'aria-labelledby': titleId, 'data-device': key },
          h('h3', { id: titleId }, deviceTitle(key)),
          stale,
          info.length
            ? h(
                'dl',
                { class: 'identity' },
                info.map((e) => {
                  const dd = h('dd', { 'data-topic': e.topic });
                  cells.set(e.topic, dd);
                  return h('div', {}, h('dt', {}, e.name), dd);
                }),
              )
            : null,
          readings.length
            ? h(
                'dl',
                { class: 'readings', 'aria-label': `${deviceTitle(key)} readings` },
                readings.map((e) => {
                  const dd = h('dd', { 'data-topic': e.topic, class: 'value' });
                  if (!(e.topic in TOTAL_KINDS)) {
                    cells.set(e.topic, dd);
                    return h('div', {}, h('dt', {}, e.name), dd);
                  }
                  todayCells.set(e.topic, dd);
                  return h('div', {}, h('dt', {}, `${e.name} (today)`), dd);
                }),
              )
            : null,
          writable.length
            ? h(
                'div',
                { class: 'settings' },
                h('h4', {}, 'Settings'),
                writable.map((e) => {
                  const control = settingControl(e, deviceTitle(key));
                  settings.set(e.topic, (entry) => control.update(entry));
                  return control.element;
                }),
              )
            : null,
        );
      }),
    );
  };

  const renderStale = (key: string) => {
    const slot = staleSlots.get(key);
    if (!slot) return;
    if (!isDeviceStale(ctx.live, key)) return replace(slot);
    const info = staleInfo(key, ctx.live, ctx.statuses);
    replace(
      slot,
      h('p', { class: 'message warn' }, h('strong', {}, 'Not answering'), ` (${info.lastSeen}): ${info.reason}`),
    );
  };

  const stopLive = ctx.live.subscribe((changed) => {
    const signature = [...ctx.live.entries.values()]
      .map((e) => `${e.topic}:${e.group}:${JSON.stringify(e.writable ?? null)}`)
      .join('\n');
    if (signature !== layout) {
      layout = signature;
      build();
      showToday();
      changed = new Set(ctx.live.entries.keys());
    }
    const devices = new Set<string>();
    for (const topic of changed) {
      const entry = ctx.live.get(topic);
      if (!entry) continue;
      devices.add(deviceKey(topic));
      const cell = cells.get(topic);
      if (cell) {
        const text = formatReading(topic, entry.value, entry.unit, entry.group === 'Info');
        if (cell.textContent !== text) cell.textContent = text;
      }
      settings.get(topic)?.(entry);
    }
    for (const device of devices) renderStale(device);
  });
  const stopStatuses = ctx.statuses.subscribe(() => {
    for (const key of staleSlots.keys()) renderStale(key);
  });
  return () => {
    stopLive();
    stopStatuses();
  };
}
