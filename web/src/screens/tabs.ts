// The page's screens, in tab order. Each draws itself into a container and returns how
// to stop (unsubscribe, clear timers) when another tab is chosen. The Overview, the first
// screen, is in the page's first script; the others load when their tab is first opened
// (web/build.mjs splits them into chunks of their own), so a phone's first load carries
// only what it shows.

import { errorText } from '../api/client.js';
import { h, replace } from '../ui/dom.js';
import type { Screen, ScreenContext } from '../state/screen-context.js';
import { mountDashboard } from './dashboard.js';

type Mount = Screen['mount'];

/** A screen loaded at its first mount; a tab left before it arrived never draws. */
function lazy(load: () => Promise<Mount>): Mount {
  return (container: HTMLElement, ctx: ScreenContext) => {
    let stop: (() => void) | null = null;
    let left = false;
    replace(container, h('p', { class: 'hint' }, 'Loading…'));
    load().then(
      (mount) => {
        if (!left) stop = mount(container, ctx);
      },
      (err: unknown) => {
        // After an upgrade, an open page asks for chunks the service no longer has.
        if (!left)
          replace(
            container,
            h(
              'p',
              { class: 'message error', role: 'alert' },
              `This screen could not be loaded (${errorText(err)}): reload the page.`,
            ),
          );
      },
    );
    return () => {
      left = true;
      stop?.();
    };
  };
}

export const SCREENS: Screen[] = [
  { id: 'home', title: 'Overview', icon: '☀', mount: mountDashboard },
  {
    id: 'devices',
    title: 'Devices',
    icon: '⚡',
    mount: lazy(() => import('./devices.js').then((m) => m.mountDevices)),
  },
  {
    id: 'plugins',
    title: 'Plugins',
    icon: '⚙',
    mount: lazy(() => import('./plugins.js').then((m) => m.mountPlugins)),
  },
  { id: 'site', title: 'Site', icon: '⌂', mount: lazy(() => import('./site.js').then((m) => m.mountSite)) },
  {
    id: 'access',
    title: 'Access',
    icon: '☰',
    mount: lazy(() => import('./access.js').then((m) => m.mountAccess)),
  },
];
