// Devices that stopped answering, said in words with the reason and when they were last
// heard from, so a stale device never just shows "—".

import { h, replace } from '../ui/dom.js';
import { formatAge } from '../ui/format.js';
import type { LiveStore } from '../state/live.js';
import { isDeviceStale, type PluginStatuses } from '../state/plugin-statuses.js';
import { deviceKey, deviceTitle } from '../api/types.js';

export interface StaleInfo {
  reason: string;
  lastSeen: string;
}

/** Why a device is stale and since when, from its plugin's status and the values seen here. */
export function staleInfo(device: string, live: LiveStore, statuses: PluginStatuses): StaleInfo {
  const plugin = statuses.forDevice(device);
  const reason = plugin?.last_error
    ? `${plugin.id}: ${plugin.last_error}`
    : plugin && plugin.state !== 'running'
      ? `its plugin ${plugin.id} is ${plugin.state}`
      : 'no answer within its stale timeout (three poll intervals)';
  const seen = live.deviceSeenAt.get(device) ?? (plugin?.last_poll ? Date.parse(plugin.last_poll) : null);
  return { reason, lastSeen: seen ? `last seen ${formatAge(seen)}` : 'not seen since the page opened' };
}

export function staleDevices(live: LiveStore): string[] {
  const devices = new Set([...live.entries.keys()].map(deviceKey));
  return [...devices].filter((d) => isDeviceStale(live, d)).sort();
}

export function mountStaleNotice(
  container: HTMLElement,
  ctx: { live: LiveStore; statuses: PluginStatuses },
): () => void {
  let shown = '';
  const render = () => {
    const stale = staleDevices(ctx.live);
    // Redrawn only when the story changes, so screen readers hear it once.
    const story = JSON.stringify(stale.map((d) => [d, staleInfo(d, ctx.live, ctx.statuses).reason]));
    if (story === shown) return;
    shown = story;
    if (stale.length === 0) return replace(container);
    replace(
      container,
      h(
        'div',
        { class: 'message warn', role: 'status' },
        stale.map((device) => {
          const info = staleInfo(device, ctx.live, ctx.statuses);
          return h(
            'p',
            { 'data-stale': device },
            h('strong', {}, `${deviceTitle(device)} is not answering`),
            ` (${info.lastSeen}): ${info.reason}. Its values show "—" until it answers again.`,
          );
        }),
      ),
    );
  };
  const a = ctx.live.subscribe(render);
  const b = ctx.statuses.subscribe(render);
  return () => {
    a();
    b();
  };
}
