// One card per device: what it is (model, serial, firmware) apart from what it reads now,
// its writable settings with controls that fit their type, and, when it stopped answering,
// why and since when.

import { h, replace } from '../ui/dom.js';
import { loadPeriodEnergy, loadSiteClock } from '../state/energy-data.js';
import { totalsOf, type EnergyKind } from '../state/energy.js';
import { NO_DATA } from '../cards/energy-view.js';
import { formatQuantity, formatReading } from '../ui/format.js';
import { periodStart } from '../state/zone.js';
import { isDeviceStale } from '../state/plugin-statuses.js';
import type { ScreenContext } from '../state/screen-context.js';
import { settingControl } from '../forms/setting-control.js';
import { staleInfo } from '../notices/stale.js';
import { deviceKey, deviceTitle } from '../api/types.js';
import type { LiveEntry } from '../state/live.js';

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

/** Where a device card's changing parts are, by topic (or device key), so an update finds them. */
interface Slots {
  cells: Map<string, HTMLElement>;
  settings: Map<string, (entry: LiveEntry) => void>;
  staleSlots: Map<string, HTMLElement>;
  todayCells: Map<string, HTMLElement>;
}

/**
 * The site's kWh totals show today's energy from the service's per-period answer, the
 * same figures as the Overview's "Energy today" (the raw counters restart at a reset
 * period the owner may have changed since; they would disagree with the Overview).
 * Loads them once; the answer shows them in `todayCells` (as they are at the time).
 */
function todayTotals(todayCells: Map<string, HTMLElement>): () => void {
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
  return showToday;
}

/** The live entries by device, the devices in their order (deviceOrder). */
function devicesOf(live: ScreenContext['live']): Array<[string, LiveEntry[]]> {
  const groups = new Map<string, LiveEntry[]>();
  for (const entry of live.entries.values()) {
    const key = deviceKey(entry.topic);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(entry);
  }
  const keys = [...groups.keys()].sort((a, b) => {
    const [ka, na] = deviceOrder(a);
    const [kb, nb] = deviceOrder(b);
    return ka - kb || na - nb || a.localeCompare(b);
  });
  return keys.map((key) => [key, groups.get(key)!.sort((a, b) => a.topic.localeCompare(b.topic))]);
}

/** A device's card: identity, readings (kWh totals as today's), settings and a slot for "not answering". */
function deviceCard(key: string, entries: LiveEntry[], slots: Slots): HTMLElement {
  const info = entries.filter((e) => e.group === 'Info');
  const readings = entries.filter((e) => e.group !== 'Info' && !e.writable);
  const writable = entries.filter((e) => e.writable);
  const titleId = `device-${key}`;
  const stale = h('div', { class: 'stale-slot' });
  slots.staleSlots.set(key, stale);
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
            slots.cells.set(e.topic, dd);
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
              slots.cells.set(e.topic, dd);
              return h('div', {}, h('dt', {}, e.name), dd);
            }
            slots.todayCells.set(e.topic, dd);
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
            slots.settings.set(e.topic, (entry) => control.update(entry));
            return control.element;
          }),
        )
      : null,
  );
}

export function mountDevices(container: HTMLElement, ctx: ScreenContext): () => void {
  const grid = h('div', { class: 'device-grid' });
  replace(container, grid);
  const slots: Slots = { cells: new Map(), settings: new Map(), staleSlots: new Map(), todayCells: new Map() };
  const { cells, settings, staleSlots } = slots;
  let layout = '';
  const showToday = todayTotals(slots.todayCells);

  const build = () => {
    cells.clear();
    settings.clear();
    staleSlots.clear();
    slots.todayCells.clear();
    const devices = devicesOf(ctx.live);
    if (devices.length === 0) {
      replace(grid, h('p', {}, 'No devices yet: no plugin has declared any. Add one under Plugins.'));
      return;
    }
    replace(
      grid,
      devices.map(([key, entries]) => deviceCard(key, entries, slots)),
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
