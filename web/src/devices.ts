/* eslint-disable max-lines-per-function -- a view built in one closure (its DOM, state and handlers); to split into smaller parts */
// One card per device: what it is (model, serial, firmware) apart from what it reads now,
// its writable settings with controls that fit their type, and, when it stopped answering,
// why and since when.

import { h, replace } from './dom.js';
import { loadSiteClock } from './energy-data.js';
import { formatReading } from './format.js';
import { isDeviceStale } from './plugin-statuses.js';
import type { ScreenContext } from './screens.js';
import { settingControl } from './setting-control.js';
import { staleInfo } from './stale.js';
import { deviceKey, deviceTitle } from './types.js';
import type { LiveEntry } from './live.js';

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
  // The kWh totals count since their reset: their labels say since when, once the site's
  // reset period is known (set in place: a rebuild would drop a setting being changed).
  let resetWords = 'this week';
  const sinceLabels = new Set<HTMLElement>();
  const since = (e: LiveEntry) => `${e.name} (${resetWords})`;
  void loadSiteClock().then((clock) => {
    resetWords = { daily: 'today', weekly: 'this week', monthly: 'this month' }[clock.reset];
    for (const dt of sinceLabels) dt.textContent = `${dt.dataset.name ?? ''} (${resetWords})`;
  });

  const build = () => {
    sinceLabels.clear();
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
                  cells.set(e.topic, dd);
                  if (!/^total\/.*_energy/.test(e.topic)) return h('div', {}, h('dt', {}, e.name), dd);
                  const dt = h('dt', { 'data-name': e.name }, since(e));
                  sinceLabels.add(dt);
                  return h('div', {}, dt, dd);
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
