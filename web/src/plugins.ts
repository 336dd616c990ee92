import { api, ApiError } from './api.js';
import { formatTime, h, replace, showMessage } from './dom.js';
import { configFields, type JsonSchema } from './schema-form.js';
import type { PluginConfig, PluginStatus } from './types.js';

interface Card {
  state: HTMLElement;
  lastError: HTMLElement;
  lastPoll: HTMLElement;
}

const STATE_TEXT: Record<PluginStatus['state'], string> = {
  starting: 'Starting',
  running: 'Running',
  failed: 'Failed',
  stopped: 'Stopped',
};

/**
 * Each plugin instance: its state, last error and last good poll (updated on every
 * refresh), and its config form, drawn once from the plugin's JSON Schema. Saving PUTs the
 * config; the plugin's own validation errors are shown as the API words them.
 */
export class PluginsSection {
  private cards = new Map<string, Card>();
  private layout = '';

  constructor(
    private readonly container: HTMLElement,
    private readonly onSaved: () => void,
  ) {}

  render(instances: PluginStatus[]): void {
    const layout = instances.map((i) => i.id).join('\n');
    if (layout !== this.layout) this.build(instances, layout);
    for (const instance of instances) {
      const card = this.cards.get(instance.id);
      if (!card) continue;
      card.state.textContent = STATE_TEXT[instance.state] ?? instance.state;
      card.state.className = `badge state-${instance.state}`;
      card.lastError.textContent = instance.last_error ?? 'none';
      card.lastError.classList.toggle('error-text', instance.last_error !== null);
      card.lastPoll.textContent = formatTime(instance.last_poll);
    }
  }

  private build(instances: PluginStatus[], layout: string): void {
    this.layout = layout;
    this.cards.clear();
    if (instances.length === 0) {
      replace(this.container, h('p', {}, 'No plugin instance is running. Add one to plugins.json on the device and restart it.'));
      return;
    }
    replace(this.container, instances.map((i) => this.card(i)));
  }

  private card(instance: PluginStatus): HTMLElement {
    const card: Card = { state: h('span', { class: 'badge' }), lastError: h('span'), lastPoll: h('span') };
    this.cards.set(instance.id, card);
    const formSlot = h('div', { class: 'config' }, h('p', { class: 'hint' }, 'Loading config…'));
    void this.loadConfig(instance.id, formSlot);
    return h(
      'article',
      { class: 'plugin', 'aria-label': `Plugin instance ${instance.id}` },
      h('header', {}, h('h3', {}, instance.id), card.state),
      h(
        'dl',
        {},
        h('dt', {}, 'Plugin'),
        h('dd', {}, `${instance.plugin} (${instance.kind})`),
        h('dt', {}, 'Devices'),
        h('dd', {}, instance.devices.length ? instance.devices.join(', ') : 'none'),
        h('dt', {}, 'Last error'),
        h('dd', {}, card.lastError),
        h('dt', {}, 'Last poll'),
        h('dd', {}, card.lastPoll),
      ),
      formSlot,
    );
  }

  private async loadConfig(id: string, slot: HTMLElement): Promise<void> {
    try {
      const described = await api<PluginConfig>('GET', `/plugins/${encodeURIComponent(id)}/config`);
      this.drawForm(id, slot, described);
    } catch (err) {
      replace(slot, h('p', { class: 'message error', role: 'alert' }, `Cannot load the config of ${id}: ${err instanceof ApiError ? err.message : String(err)}`));
    }
  }

  private drawForm(id: string, slot: HTMLElement, described: PluginConfig): void {
    const fields = configFields(described.schema as JsonSchema, described.config, id);
    const message = h('p', { class: 'message', hidden: true });
    const button = h('button', { type: 'submit' }, 'Save config');
    // novalidate: the plugin's schema on the server is the one judge, and its message
    // names the exact key; the browser's own bubbles would name none.
    const form = h('form', { class: 'config-form', 'aria-label': `Config of ${id}`, novalidate: true }, h('h4', {}, 'Config'), fields.element, h('div', { class: 'actions' }, button), message);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const read = fields.read();
      if (!read.ok) {
        showMessage(message, 'error', `Not saved: ${read.message}`);
        return;
      }
      button.disabled = true;
      showMessage(message, 'info', 'Saving… (the plugin restarts with the new config)');
      try {
        const config = await api<Record<string, unknown>>('PUT', `/plugins/${encodeURIComponent(id)}/config`, { body: read.value ?? {} });
        this.drawForm(id, slot, { schema: described.schema, config });
        const saved = slot.querySelector<HTMLElement>('.message')!;
        showMessage(saved, 'ok', 'Saved. The plugin restarted with the new config.');
        this.onSaved();
      } catch (err) {
        showMessage(message, 'error', `Not saved:\n${err instanceof ApiError ? err.message : String(err)}`);
      } finally {
        button.disabled = false;
      }
    });
    replace(slot, form);
  }
}

export function fetchPlugins(): Promise<PluginStatus[]> {
  return api<PluginStatus[]>('GET', '/plugins');
}
