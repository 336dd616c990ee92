// The offline banner: shown while the WebSocket is down, saying since when and that the
// page keeps trying; every live value is dimmed meanwhile (body.offline), so nothing
// looks live that is not.

import { h, replace } from '../ui/dom.js';
import type { LiveStore } from '../state/live.js';

export function mountConnectionBanner(banner: HTMLElement, live: LiveStore): () => void {
  return live.onConnection((online, since) => {
    const offline = online === false;
    document.body.classList.toggle('offline', offline);
    banner.hidden = !offline;
    if (!offline) {
      // Screen readers hear the recovery once; the banner itself is gone.
      if (banner.dataset.wasOffline) announce('Connection to Heliograph restored. Values are live again.');
      delete banner.dataset.wasOffline;
      replace(banner);
      return;
    }
    banner.dataset.wasOffline = '1';
    banner.setAttribute('role', 'alert');
    const when = since ? new Date(since).toLocaleTimeString() : '';
    replace(
      banner,
      h('strong', {}, 'Offline. '),
      `No connection to Heliograph since ${when}: the values shown are the last ones received, not live. Reconnecting…`,
    );
  });
}

function announce(text: string): void {
  let region = document.getElementById('announcer');
  if (!region) {
    region = h('div', { id: 'announcer', class: 'sr-only', role: 'status' });
    document.body.append(region);
  }
  region.textContent = text;
}
