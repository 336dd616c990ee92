// A plugin's grants as the owner reads them: what it asks to do beyond its own devices, one
// sentence and one checkbox each, ticked for what is approved. The add dialog and a plugin
// card's "Edit permissions" both draw it; `read()` gives the approval to send.

import { h, uid } from '../ui/dom.js';
import type { PluginStatus } from '../api/types.js';

/** What a plugin asks for, or what its owner approved (writes, prices, forecast, hosts). */
export type PluginGrants = NonNullable<PluginStatus['grants']>['requested'];

/** One grant: where it sits in a PluginGrants, and the sentence the owner reads. */
export interface GrantItem {
  key: 'writes' | 'prices' | 'forecast' | 'hosts';
  /** The topic glob or host; none for prices and forecast. */
  value?: string;
  text: string;
}

function writeText(glob: string): string {
  return glob === '*' ? 'Change settings of any device' : `Change settings of ${glob}`;
}

function hostText(host: string): string {
  if (host === '*') return 'Reach any host on the network';
  if (host.startsWith('*.')) return `Reach any host under ${host.slice(2)}`;
  return `Reach ${host}`;
}

/** Each grant `requested` holds, in the order the manifest schema lists them. */
export function grantItems(requested: PluginGrants | undefined): GrantItem[] {
  const items: GrantItem[] = [];
  for (const value of requested?.writes ?? []) items.push({ key: 'writes', value, text: writeText(value) });
  if (requested?.prices === true) items.push({ key: 'prices', text: 'Publish grid prices' });
  if (requested?.forecast === true) items.push({ key: 'forecast', text: 'Publish the PV forecast' });
  for (const value of requested?.hosts ?? []) items.push({ key: 'hosts', value, text: hostText(value) });
  return items;
}

/** Whether `grants` holds the item. */
export function holds(grants: PluginGrants | undefined, item: GrantItem): boolean {
  if (item.key === 'prices' || item.key === 'forecast') return grants?.[item.key] === true;
  return (grants?.[item.key] ?? []).includes(item.value!);
}

/** "1 of 2 approved": how many of the requested grants `approved` holds. */
export function approvedCount(requested: PluginGrants | undefined, approved: PluginGrants | undefined): string {
  const items = grantItems(requested);
  return `${items.filter((item) => holds(approved, item)).length} of ${items.length} approved`;
}

/** The approval made of the ticked items. */
function approval(items: GrantItem[], ticked: boolean[]): PluginGrants {
  const grants: PluginGrants = {};
  items.forEach((item, i) => {
    if (!ticked[i]) return;
    if (item.key === 'prices' || item.key === 'forecast') grants[item.key] = true;
    else (grants[item.key] ??= []).push(item.value!);
  });
  return grants;
}

export interface GrantsChoice {
  /** The "Permissions" box; `data-path="grants"`, so an API issue about grants shows in it. */
  element: HTMLFieldSetElement;
  /** What is ticked, as the `grants` of POST /plugins or the body of PUT /plugins/:id/grants. */
  read(): PluginGrants;
}

/**
 * The checkbox list of what `requested` holds, each ticked when `approved` holds it; `hint`
 * says under the legend what approving means for this plugin.
 */
export function grantsChoice(options: { requested: PluginGrants; approved: PluginGrants; hint: string }): GrantsChoice {
  const items = grantItems(options.requested);
  const boxes = items.map((item) => {
    const id = uid('grant');
    const box = h('input', { id, type: 'checkbox', class: 'switch', checked: holds(options.approved, item) });
    return { box, row: h('div', { class: 'switch-row' }, box, h('label', { for: id }, item.text)) };
  });
  const hintId = uid('grants-hint');
  const element = h(
    'fieldset',
    { class: 'fields grants', 'data-path': 'grants', 'aria-describedby': hintId },
    h('legend', {}, 'Permissions'),
    h('p', { class: 'hint', id: hintId }, options.hint),
    boxes.map((b) => b.row),
  );
  return {
    element,
    read: () =>
      approval(
        items,
        boxes.map((b) => b.box.checked),
      ),
  };
}

/** The hint over a plugin's permissions: a bundled plugin's are ticked, a third-party one's are the owner's to give. */
export function grantsHint(bundled: boolean): string {
  return bundled
    ? 'It ships with Heliograph and asks for these beyond its own devices; untick any you do not want it to do.'
    : 'It does not ship with Heliograph: tick only what you expect it to do. Anything else it tries is refused (GRANT_MISSING) and shown in the audit log.';
}
