// The settings page: sign-in, then the sections, refreshed every few seconds while the
// tab is visible.

import { api, ApiError, authFailureMessage, handleAuthFailures, isAuthFailure, storedPassword, storePassword } from './api.js';
import { AuditSection } from './audit.js';
import { h, replace, showMessage } from './dom.js';
import { fetchMetrics, LiveMetrics, SettingsForms } from './metrics.js';
import { fetchPlugins, PluginsSection } from './plugins.js';
import { TokensSection } from './tokens.js';
import type { Metric } from './types.js';

const REFRESH_MS = 3000;
const root = document.getElementById('app')!;

function section(id: string, title: string, ...content: HTMLElement[]): { element: HTMLElement; body: HTMLElement } {
  const body = h('div', { class: 'section-body' });
  const element = h('section', { id, 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title` }, title), ...content, body);
  return { element, body };
}

function showSignIn(message?: string): void {
  stopRefresh();
  const input = h('input', { id: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const status = h('p', { class: 'message', hidden: true });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'sign-in', 'aria-label': 'Sign in' },
    h('h2', {}, 'Sign in'),
    h('div', { class: 'field' }, h('label', { for: 'password' }, 'Device password'), input),
    h('div', { class: 'actions' }, button),
    status,
  );
  if (message) showMessage(status, 'error', message);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    showMessage(status, 'info', 'Signing in…');
    try {
      const metrics = await api<Metric[]>('GET', '/metrics', { password: input.value });
      storePassword(input.value);
      showApp(metrics);
    } catch (err) {
      const text = err instanceof ApiError && isAuthFailure(err) ? authFailureMessage(err, true) : err instanceof ApiError ? err.message : String(err);
      showMessage(status, 'error', text);
      input.select();
    } finally {
      button.disabled = false;
    }
  });
  replace(root, form);
  input.focus();
}

let timer: number | undefined;
let refreshNow: (() => Promise<void>) | undefined;

function stopRefresh(): void {
  clearTimeout(timer);
  timer = undefined;
  refreshNow = undefined;
}

function showApp(initial: Metric[]): void {
  stopRefresh();
  const signOut = h('button', { type: 'button', class: 'secondary' }, 'Sign out');
  signOut.addEventListener('click', () => {
    storePassword(null);
    showSignIn();
  });
  const updated = h('p', { class: 'hint', role: 'status' });
  const live = section('live', 'Live metrics', updated);
  const settings = section('settings', 'Settings', h('p', { class: 'hint' }, 'Writable values of the devices. Saving sends the value to the device and waits for it to confirm.'));
  const plugins = section('plugins', 'Plugins', h('p', { class: 'hint' }, 'Each plugin instance from plugins.json. Saving a config restarts that plugin with it and writes plugins.json.'));
  const tokens = section('tokens', 'Access tokens', h('p', { class: 'hint' }, 'Tokens let other clients (Home Assistant, scripts) use the API without the device password.'));
  const audit = section('audit', 'Audit log', h('p', { class: 'hint' }, 'The last 50 write attempts, refused ones included, newest first.'));

  const nav = h('nav', { 'aria-label': 'Sections' }, [live, settings, plugins, tokens, audit].map((s) => h('a', { href: `#${s.element.id}` }, s.element.querySelector('h2')!.textContent)));
  replace(root, h('div', { class: 'toolbar' }, nav, signOut), live.element, settings.element, plugins.element, tokens.element, audit.element);

  const auditSection = new AuditSection(audit.body);
  const afterWrite = () => void refresh().then(() => auditSection.refresh());
  const liveTable = new LiveMetrics(live.body);
  const settingsForms = new SettingsForms(settings.body, afterWrite);
  const pluginsSection = new PluginsSection(plugins.body, afterWrite);
  const tokensSection = new TokensSection(tokens.body);

  const renderMetrics = (metrics: Metric[]) => {
    liveTable.render(metrics);
    settingsForms.render(metrics);
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    updated.classList.remove('error-text');
  };

  async function refresh(): Promise<void> {
    try {
      const [metrics, instances] = await Promise.all([fetchMetrics(), fetchPlugins()]);
      renderMetrics(metrics);
      pluginsSection.render(instances);
    } catch (err) {
      if (isAuthFailure(err)) return; // handled: back to sign-in
      updated.textContent = `Could not refresh: ${err instanceof ApiError ? err.message : String(err)}`;
      updated.classList.add('error-text');
    }
  }

  const loop = async () => {
    if (!document.hidden) await refresh();
    if (refreshNow === refresh) timer = window.setTimeout(loop, REFRESH_MS);
  };
  refreshNow = refresh;

  renderMetrics(initial);
  void fetchPlugins().then((i) => pluginsSection.render(i), () => undefined);
  void tokensSection.refresh();
  void auditSection.refresh();
  timer = window.setTimeout(loop, REFRESH_MS);
}

handleAuthFailures((err) => {
  storePassword(null);
  showSignIn(authFailureMessage(err, false));
});

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) void refreshNow?.();
});

async function start(): Promise<void> {
  if (storedPassword() === null) return showSignIn();
  try {
    showApp(await fetchMetrics());
  } catch (err) {
    if (!isAuthFailure(err)) showSignIn(err instanceof ApiError ? err.message : String(err));
  }
}

void start();
