// Plugin instances: state, last error and last good poll; enable or disable, remove, edit
// the config; and add an instance of any installed plugin. States come from
// PluginStatuses, which asks again while an instance is starting, so after a save the
// card turns to Running or Failed once the first run has really finished.

import { api, errorText } from '../api/client.js';
import { h, replace, showMessage, uid } from '../ui/dom.js';
import { formatTime } from '../ui/format.js';
import { configForm } from '../forms/plugin-form.js';
import { mountAddPlugin } from './plugin-add.js';
import { grantsPart } from './plugin-grants.js';
import type { ScreenContext } from '../state/screen-context.js';
import type { PluginConfig, PluginStatus } from '../api/types.js';

const STATE_TEXT: Record<PluginStatus['state'], string> = {
  starting: 'Starting',
  running: 'Running',
  failed: 'Failed',
  stopped: 'Stopped',
};

interface Card {
  element: HTMLElement;
  update(status: PluginStatus): void;
}

export function mountPlugins(container: HTMLElement, ctx: ScreenContext): () => void {
  const list = h('div', { class: 'plugin-list' });
  const addSlot = h(
    'section',
    { class: 'card', 'aria-labelledby': 'add-plugin-title' },
    h('h3', { id: 'add-plugin-title' }, 'Add a plugin'),
  );
  replace(container, list, addSlot);
  // It shows a failed load in its slot itself.
  void mountAddPlugin(addSlot, ctx);
  const cards = new Map<string, Card>();
  let layout = '';
  const stop = ctx.statuses.subscribe((instances) => {
    const ids = instances.map((i) => i.id).join('\n');
    if (ids !== layout) {
      layout = ids;
      for (const id of [...cards.keys()]) if (!instances.some((i) => i.id === id)) cards.delete(id);
      for (const instance of instances) if (!cards.has(instance.id)) cards.set(instance.id, pluginCard(instance, ctx));
      replace(
        list,
        instances.length
          ? instances.map((i) => cards.get(i.id)!.element)
          : h('p', {}, 'No plugin instance yet: add one below.'),
      );
    }
    for (const instance of instances) cards.get(instance.id)!.update(instance);
  });
  return stop;
}

/** "Edit config", folded: the form is loaded the first time it is opened. */
function configDetails(id: string, ctx: ScreenContext): HTMLDetailsElement {
  const details = h('details', { class: 'config' }, h('summary', {}, 'Edit config'));
  const formSlot = h('div', {}, h('p', { class: 'hint' }, 'Loading config…'));
  details.append(formSlot);
  let loaded = false;
  details.addEventListener('toggle', () => {
    if (details.open && !loaded) {
      loaded = true;
      void loadConfig(id, formSlot, ctx);
    }
  });
  return details;
}

/** What the instance is, and the slots for its last error, last good run and permissions. */
function pluginFacts(
  instance: PluginStatus,
  lastError: HTMLElement,
  lastPoll: HTMLElement,
  permissions: HTMLElement,
): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    h('div', {}, h('dt', {}, 'Plugin'), h('dd', {}, `${instance.plugin} (${instance.kind})`)),
    h('div', {}, h('dt', {}, 'Devices'), h('dd', {}, instance.devices.length ? instance.devices.join(', ') : 'none')),
    h('div', {}, h('dt', {}, 'Last error'), lastError),
    h('div', {}, h('dt', {}, 'Last good run'), lastPoll),
    permissions,
  );
}

function pluginCard(instance: PluginStatus, ctx: ScreenContext): Card {
  const badge = h('span', { class: 'badge' });
  // A price or forecast source the owner did not choose (config prices.source, forecast.source): kept, not used.
  const standby = h('span', { class: 'badge state-stopped', hidden: true }, 'Not in use');
  const lastError = h('dd');
  const lastPoll = h('dd');
  const enabledId = uid('enabled');
  const enabled = h('input', { id: enabledId, type: 'checkbox', role: 'switch', class: 'switch' });
  const message = h('p', { class: 'message', hidden: true });
  const remove = h('button', { type: 'button', class: 'danger' }, 'Remove');
  const details = configDetails(instance.id, ctx);
  const grants = grantsPart(instance.id, ctx);

  const switchEnabled = async () => {
    enabled.disabled = true;
    try {
      await api('PATCH', `/plugins/${encodeURIComponent(instance.id)}`, { body: { enabled: enabled.checked } });
      showMessage(message, 'ok', enabled.checked ? 'Enabled: starting…' : 'Disabled: stopped.');
    } catch (err) {
      enabled.checked = !enabled.checked;
      showMessage(message, 'error', `Not changed: ${errorText(err)}`);
    } finally {
      enabled.disabled = false;
      await ctx.statuses.refresh();
    }
  };
  // switchEnabled shows its own failures on the page, so its promise can be let go.
  enabled.addEventListener('change', () => void switchEnabled());
  const removeInstance = async () => {
    if (
      !window.confirm(`Remove the plugin instance "${instance.id}"? It stops at once and is taken out of plugins.json.`)
    )
      return;
    remove.disabled = true;
    try {
      await api('DELETE', `/plugins/${encodeURIComponent(instance.id)}`);
      await ctx.statuses.refresh();
    } catch (err) {
      remove.disabled = false;
      showMessage(message, 'error', `Not removed: ${errorText(err)}`);
    }
  };
  // removeInstance shows its own failures on the page, so its promise can be let go.
  remove.addEventListener('click', () => void removeInstance());

  const element = h(
    'article',
    { class: 'card plugin', 'aria-label': `Plugin instance ${instance.id}`, 'data-plugin': instance.id },
    h('header', {}, h('h3', {}, instance.id), badge, standby),
    pluginFacts(instance, lastError, lastPoll, grants.fact),
    h(
      'div',
      { class: 'plugin-actions' },
      h(
        'div',
        { class: 'switch-row' },
        enabled,
        h('label', { for: enabledId }, 'Enabled', h('span', { class: 'sr-only' }, ` (${instance.id})`)),
      ),
      remove,
    ),
    message,
    details,
    grants.details,
  );
  return {
    element,
    update(status) {
      badge.textContent = STATE_TEXT[status.state] ?? status.state;
      badge.className = `badge state-${status.state}`;
      standby.hidden = status.source_role !== 'standby';
      lastError.textContent =
        status.last_error ?? (status.state === 'starting' ? 'none yet (first run not finished)' : 'none');
      lastError.classList.toggle('error-text', status.last_error !== null);
      lastPoll.textContent = formatTime(status.last_poll);
      if (!enabled.disabled) enabled.checked = status.enabled !== false;
      grants.update(status);
    },
  };
}

async function loadConfig(id: string, slot: HTMLElement, ctx: ScreenContext): Promise<void> {
  let described: PluginConfig;
  try {
    described = await api<PluginConfig>('GET', `/plugins/${encodeURIComponent(id)}/config`);
  } catch (err) {
    replace(
      slot,
      h('p', { class: 'message error', role: 'alert' }, `Cannot load the config of ${id}: ${errorText(err)}`),
    );
    return;
  }
  const draw = (config: Record<string, unknown>, secrets: Record<string, boolean> | undefined, saved?: string) => {
    const form = configForm({
      label: `Config of ${id}`,
      schema: described.schema,
      config,
      secrets,
      suffix: id,
      submitText: 'Save config',
      send: async (value) => {
        const answer = await api<Record<string, unknown>>('PUT', `/plugins/${encodeURIComponent(id)}/config`, {
          body: value,
        });
        // Older servers answer the config itself; newer ones `{config, secrets}`.
        const next =
          answer && typeof answer === 'object' && 'config' in answer && 'schema' in answer
            ? (answer as unknown as PluginConfig)
            : { config: answer, secrets };
        const text = 'Saved. The plugin restarts with the new config; its state above shows how the first run went.';
        draw(next.config, next.secrets, text);
        await ctx.statuses.refresh();
        return text;
      },
    });
    replace(slot, form);
    if (saved) showMessage(form.querySelector<HTMLElement>('.message')!, 'ok', saved);
  };
  draw(described.config, described.secrets);
}
