// The page's screens, in tab order. Each draws itself into a container and returns how
// to stop (unsubscribe, clear timers) when another tab is chosen.

import type { PageToken } from './api.js';
import type { LiveStore } from './live.js';
import type { PluginStatuses } from './plugin-statuses.js';
import { mountDashboard } from './dashboard.js';
import { mountDevices } from './devices.js';
import { mountPlugins } from './plugins.js';
import { mountSite } from './site.js';
import { mountAccess } from './access.js';

export interface ScreenContext {
  live: LiveStore;
  statuses: PluginStatuses;
  token: PageToken;
}

export interface Screen {
  id: string;
  title: string;
  icon: string;
  mount(container: HTMLElement, ctx: ScreenContext): () => void;
}

export const SCREENS: Screen[] = [
  { id: 'home', title: 'Overview', icon: '☀', mount: mountDashboard },
  { id: 'devices', title: 'Devices', icon: '⚡', mount: mountDevices },
  { id: 'plugins', title: 'Plugins', icon: '⚙', mount: mountPlugins },
  { id: 'site', title: 'Site', icon: '⌂', mount: mountSite },
  { id: 'access', title: 'Access', icon: '☰', mount: mountAccess },
];
