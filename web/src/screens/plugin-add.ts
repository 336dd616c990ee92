// Adding a plugin instance: choose one of the installed plugins (with its description),
// name the instance, pick its devices if it drives any, approve what it asks beyond them,
// fill in its config, save. The API checks everything and saves nothing when a field is wrong.

import { api, ApiError, errorText } from '../api/client.js';
import { h, replace, uid } from '../ui/dom.js';
import { configForm } from '../forms/plugin-form.js';
import { grantItems, grantsChoice, grantsHint, type GrantsChoice } from '../forms/grants-choice.js';
import type { ScreenContext } from '../state/screen-context.js';
import type { InstalledPlugin, PluginStatus } from '../api/types.js';

/** A free instance id from the plugin's name: `open-meteo`, else `open-meteo-2`… */
function freeId(plugin: string, taken: string[]): string {
  if (!taken.includes(plugin)) return plugin;
  for (let n = 2; ; n++) if (!taken.includes(`${plugin}-${n}`)) return `${plugin}-${n}`;
}

export async function mountAddPlugin(slot: HTMLElement, ctx: ScreenContext): Promise<void> {
  let installed: InstalledPlugin[];
  try {
    installed = await api<InstalledPlugin[]>('GET', '/plugins/installed');
  } catch (err) {
    const text =
      err instanceof ApiError && err.status === 404
        ? 'This version of Heliograph cannot add plugins from the page: add them to plugins.json on the device and restart it.'
        : `Cannot list the installed plugins: ${errorText(err)}`;
    slot.append(h('p', { class: 'hint' }, text));
    return;
  }
  const pickId = uid('add-plugin');
  const pick = h(
    'select',
    { id: pickId },
    h('option', { value: '' }, 'Choose a plugin…'),
    installed.map((p, i) => h('option', { value: String(i) }, `${p.name} (${p.kind})`)),
  );
  const formSlot = h('div');
  slot.append(h('div', { class: 'field' }, h('label', { for: pickId }, 'Plugin'), pick), formSlot);
  pick.addEventListener('change', () => {
    const plugin = installed[Number(pick.value)];
    if (pick.value === '' || !plugin) return replace(formSlot);
    drawAddForm(formSlot, plugin, ctx, (added) => {
      pick.value = '';
      replace(
        formSlot,
        h(
          'p',
          { class: 'message ok', role: 'status' },
          `Added "${added}": its card above shows how its first run goes.`,
        ),
      );
    });
  });
}

/** What the plugin asks beyond its own devices, if anything: a bundled plugin's ticked, a third-party one's not. */
function grantsPart(plugin: InstalledPlugin): GrantsChoice | null {
  // A server from before grants were listed sends none.
  if (grantItems(plugin.grants).length === 0) return null;
  const bundled = plugin.bundled !== false;
  return grantsChoice({ requested: plugin.grants, approved: bundled ? plugin.grants : {}, hint: grantsHint(bundled) });
}

function drawAddForm(slot: HTMLElement, plugin: InstalledPlugin, ctx: ScreenContext, done: (id: string) => void): void {
  const idId = uid('new-id');
  const id = h('input', {
    id: idId,
    type: 'text',
    required: true,
    value: freeId(
      plugin.plugin,
      ctx.statuses.list.map((p: PluginStatus) => p.id),
    ),
    spellcheck: false,
    autocomplete: 'off',
    'aria-describedby': `${idId}-hint`,
  });
  const extra: HTMLElement[] = [
    h('p', { class: 'hint' }, plugin.description),
    h(
      'div',
      { class: 'field', 'data-path': 'id' },
      h('label', { for: idId }, 'Instance name'),
      id,
      h(
        'p',
        { class: 'hint', id: `${idId}-hint` },
        'A short name of your choice (letters, digits, - and _), used in plugins.json and the audit log.',
      ),
    ),
  ];
  let devices: HTMLInputElement | null = null;
  if (plugin.devices) {
    const devId = uid('new-devices');
    const kinds = plugin.devices.kinds;
    devices = h('input', {
      id: devId,
      type: 'text',
      spellcheck: false,
      autocomplete: 'off',
      value: kinds.map((k) => `${k}_1`).join(', '),
      'aria-describedby': `${devId}-hint`,
    });
    extra.push(
      h(
        'div',
        { class: 'field', 'data-path': 'devices' },
        h('label', { for: devId }, 'Devices'),
        devices,
        h(
          'p',
          { class: 'hint', id: `${devId}-hint` },
          `The devices it drives, separated by commas: ${kinds.map((k) => `${k}_1, ${k}_2…`).join(' or ')}.`,
        ),
      ),
    );
  }
  const grants = grantsPart(plugin);
  if (grants) extra.push(grants.element);
  const form = configForm({
    label: `New ${plugin.name} instance`,
    schema: plugin.schema,
    config: {},
    suffix: 'new',
    submitText: 'Add plugin',
    configKey: 'config',
    extra,
    send: async (config) => {
      const body: Record<string, unknown> = { id: id.value.trim(), plugin: plugin.plugin, enabled: true, config };
      if (devices) body.devices = devices.value.split(/[\s,]+/).filter(Boolean);
      if (grants) body.grants = grants.read();
      await api<PluginStatus>('POST', '/plugins', { body });
      await ctx.statuses.refresh();
      done(String(body.id));
      return 'Added.';
    },
  });
  replace(slot, form);
}
