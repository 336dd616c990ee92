// The page's entry: signs in (or runs first-time setup), then shows one screen at a time
// under a tab bar (at the bottom on phones), with live values from one WebSocket.

import './style.css';
import 'uplot/dist/uPlot.min.css';
import {
  api,
  ApiError,
  authFailureMessage,
  handleAuthFailures,
  storedToken,
  storeToken,
  type PageToken,
} from './api/client.js';
import { h, replace } from './ui/dom.js';
import { LiveStore } from './state/live.js';
import { needsSetup, showSetup, showSignIn, signOut } from './screens/session.js';
import { PluginStatuses } from './state/plugin-statuses.js';
import { mountConnectionBanner } from './notices/connection.js';
import { applyStoredTheme, mountThemeSwitch } from './ui/theme.js';
import { SCREENS } from './screens/tabs.js';
import type { Screen, ScreenContext } from './state/screen-context.js';
import type { Metric } from './api/types.js';

applyStoredTheme();
const root = document.getElementById('app')!;
const live = new LiveStore();
const statuses = new PluginStatuses(live);
let unmountScreen: (() => void) | null = null;
let stopProbe: (() => void) | null = null;

function currentScreen(): Screen {
  const id = location.hash.replace(/^#/, '');
  return SCREENS.find((s) => s.id === id) ?? SCREENS[0]!;
}

function stopApp(): void {
  unmountScreen?.();
  unmountScreen = null;
  stopProbe?.();
  stopProbe = null;
  live.disconnect();
  statuses.stop();
}

function signInScreen(message?: string): void {
  stopApp();
  document.body.classList.remove('signed-in');
  showSignIn(root, (token) => void startApp(token), message);
}

async function startApp(token: PageToken): Promise<void> {
  // The shell is drawn at once. The screen, the socket and the other calls wait for the
  // snapshot: a revoked token then costs one refused call, not a burst that would use up
  // the address's failed-login allowance (and get the next sign-in throttled).
  document.body.classList.add('signed-in');
  const snapshot = api<Metric[]>('GET', '/metrics');

  const content = h('div', { class: 'screen', id: 'screen' });
  const tabs = SCREENS.map((screen) =>
    h(
      'a',
      { href: `#${screen.id}`, class: 'tab', 'data-screen': screen.id },
      h('span', { class: 'tab-icon', 'aria-hidden': 'true' }, screen.icon),
      h('span', {}, screen.title),
    ),
  );
  const nav = h('nav', { class: 'tabs', 'aria-label': 'Screens' }, tabs);
  const signOutButton = h('button', { type: 'button', class: 'secondary' }, 'Sign out');
  const signOutAndShowSignIn = async () => {
    signOutButton.disabled = true;
    await signOut(storedToken());
    signInScreen();
  };
  // signOut lets a failed revoke go (the page forgets the token either way): nothing can reject.
  signOutButton.addEventListener('click', () => void signOutAndShowSignIn());
  const banner = h('div', { class: 'banner', hidden: true });
  const themeSlot = h('div', { class: 'theme-slot' });
  replace(root, banner, content, nav);
  const toolbar = document.getElementById('toolbar')!;
  replace(toolbar, themeSlot, signOutButton);
  mountThemeSwitch(themeSlot);
  mountConnectionBanner(banner, live);

  try {
    live.seedSnapshot(await snapshot);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return; // handleAuthFailures shows sign-in
    replace(
      content,
      h(
        'p',
        { class: 'message error', role: 'alert' },
        `Cannot reach Heliograph: ${err instanceof ApiError ? err.message : String(err)}. Reload the page to try again.`,
      ),
    );
    return;
  }
  live.connect(token.token);
  // A socket that drops may mean the token was revoked or expired (the service closes its
  // sockets then): one call tells, and a 401 shows the sign-in form (handleAuthFailures)
  // instead of reconnecting forever.
  let probing = false;
  stopProbe = live.onConnection((online) => {
    if (online !== false || probing) return;
    probing = true;
    api('GET', '/system')
      .catch(() => undefined)
      .finally(() => (probing = false));
  });
  statuses.start();
  const ctx: ScreenContext = { live, statuses, token };
  const show = () => {
    const screen = currentScreen();
    for (const tab of tabs) {
      if (tab.dataset.screen === screen.id) tab.setAttribute('aria-current', 'page');
      else tab.removeAttribute('aria-current');
    }
    unmountScreen?.();
    const body = h('div', { class: 'screen-body' });
    replace(content, h('h2', { class: 'screen-title', tabindex: -1 }, screen.title), body);
    document.title = `${screen.title} · Heliograph`;
    unmountScreen = screen.mount(body, ctx);
  };
  window.onhashchange = () => {
    show();
    content.querySelector<HTMLElement>('.screen-title')?.focus();
  };
  show();
}

handleAuthFailures((err) => {
  storeToken(null);
  signInScreen(authFailureMessage(err, false));
});

async function start(): Promise<void> {
  const token = storedToken();
  if (token) return startApp(token);
  try {
    if (await needsSetup()) return showSetup(root, (created) => void startApp(created));
  } catch {
    // The device did not answer /setup: sign-in says what is wrong when it is tried.
  }
  signInScreen();
}

void start();
