// What every screen is given when it is drawn: the live values, the plugins' states and the
// page's own token. Here, below the screens, so the screens and their list
// (screens/tabs.ts) both import it and no screen imports the list.

import type { PageToken } from '../api/client.js';
import type { LiveStore } from './live.js';
import type { PluginStatuses } from './plugin-statuses.js';

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
