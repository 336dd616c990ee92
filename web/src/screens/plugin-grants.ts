// A plugin card's permissions: "Permissions: 1 of 2 approved" among its facts, and "Edit
// permissions", the same checkbox list as the add dialog, saved with PUT
// /plugins/:id/grants (the instance restarts with what is ticked).

import { api, errorText } from '../api/client.js';
import { h, replace, showMessage } from '../ui/dom.js';
import { approvedCount, grantItems, grantsChoice, type PluginGrants } from '../forms/grants-choice.js';
import type { ScreenContext } from '../state/screen-context.js';
import type { PluginStatus } from '../api/types.js';

const EDIT_HINT =
  'What it may do beyond its own devices. Saving restarts it with what is ticked; anything else it tries is refused (GRANT_MISSING) and shown in the audit log.';

export interface GrantsPart {
  /** The "Permissions" row of the card's facts; hidden when the plugin asks for nothing. */
  fact: HTMLElement;
  /** "Edit permissions", folded; hidden when the plugin asks for nothing. */
  details: HTMLDetailsElement;
  update(status: PluginStatus): void;
}

export function grantsPart(id: string, ctx: ScreenContext): GrantsPart {
  const count = h('dd');
  const fact = h('div', { hidden: true }, h('dt', {}, 'Permissions'), count);
  const details = h('details', { class: 'config', hidden: true }, h('summary', {}, 'Edit permissions'));
  const formSlot = h('div');
  details.append(formSlot);
  let grants: PluginStatus['grants'];
  // Drawn from the latest status each time it is opened, so it shows what is approved now.
  details.addEventListener('toggle', () => {
    if (details.open && grants) replace(formSlot, grantsForm(id, grants.requested, grants.approved, ctx));
  });
  return {
    fact,
    details,
    update(status) {
      grants = status.grants;
      const asks = grantItems(grants?.requested).length > 0;
      fact.hidden = !asks;
      details.hidden = !asks;
      count.textContent = asks ? approvedCount(grants?.requested, grants?.approved) : '';
    },
  };
}

function grantsForm(id: string, requested: PluginGrants, approved: PluginGrants, ctx: ScreenContext): HTMLFormElement {
  const choice = grantsChoice({ requested, approved, hint: EDIT_HINT });
  const button = h('button', { type: 'submit' }, 'Save permissions');
  const message = h('p', { class: 'message', hidden: true });
  const form = h(
    'form',
    { class: 'config-form', 'aria-label': `Permissions of ${id}` },
    choice.element,
    h('div', { class: 'actions' }, button),
    message,
  );
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    button.disabled = true;
    showMessage(message, 'info', 'Saving… (the plugin restarts with these permissions)');
    try {
      await api<PluginStatus>('PUT', `/plugins/${encodeURIComponent(id)}/grants`, { body: choice.read() });
      showMessage(
        message,
        'ok',
        'Saved. The plugin restarts with these permissions; its state above shows how it went.',
      );
      await ctx.statuses.refresh();
    } catch (err) {
      showMessage(message, 'error', `Not saved: ${errorText(err)}`);
    } finally {
      button.disabled = false;
    }
  };
  // save shows its own failures on the page, so its promise can be let go.
  form.addEventListener('submit', (event) => void save(event));
  return form;
}
