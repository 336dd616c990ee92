// Adding a plugin instance: choose one of the installed plugins (with its description),
// name the instance, pick its devices if it drives any, approve what it asks beyond them,
// fill in its config, save. The API checks everything and saves nothing when a field is wrong.

import { api, loadFailure } from '../api/client.js';
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
    const failed = loadFailure(
      err,
      'list the installed plugins',
      'This version of Heliograph cannot add plugins from the page: add them to plugins.json on the device and restart it.',
    );
    slot.append(h('p', { class: 'hint' }, failed.text));
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

/** A text field of the form (`path` names it in the API's issues), with a hint under it that screen readers read too. */
function textField(options: { path: string; label: string; value: string; hint: string; required?: boolean }): {
  element: HTMLElement;
  input: HTMLInputElement;
} {
  const inputId = uid(`new-${options.path}`);
  const input = h('input', {
    id: inputId,
    type: 'text',
    required: options.required,
    value: options.value,
    spellcheck: false,
    autocomplete: 'off',
    'aria-describedby': `${inputId}-hint`,
  });
  const element = h(
    'div',
    { class: 'field', 'data-path': options.path },
    h('label', { for: inputId }, options.label),
    input,
    h('p', { class: 'hint', id: `${inputId}-hint` }, options.hint),
  );
  return { element, input };
}

function drawAddForm(slot: HTMLElement, plugin: InstalledPlugin, ctx: ScreenContext, done: (id: string) => void): void {
  const id = textField({
    path: 'id',
    label: 'Instance name',
    required: true,
    value: freeId(
      plugin.plugin,
      ctx.statuses.list.map((p: PluginStatus) => p.id),
    ),
    hint: 'A short name of your choice (letters, digits, - and _), used in plugins.json and the audit log.',
  });
  const extra: HTMLElement[] = [h('p', { class: 'hint' }, plugin.description), id.element];
  let devices: HTMLInputElement | null = null;
  if (plugin.devices) {
    const kinds = plugin.devices.kinds;
    const field = textField({
      path: 'devices',
      label: 'Devices',
      value: kinds.map((k) => `${k}_1`).join(', '),
      hint: `The devices it drives, separated by commas: ${kinds.map((k) => `${k}_1, ${k}_2…`).join(' or ')}.`,
    });
    devices = field.input;
    extra.push(field.element);
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
      const body: Record<string, unknown> = { id: id.input.value.trim(), plugin: plugin.plugin, enabled: true, config };
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
