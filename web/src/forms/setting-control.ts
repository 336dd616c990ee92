// A device setting's control: a switch for on/off choices, a select for other choices, a
// number input with the declared range and step. Saving sends the value as text (POST
// /api/v1/metrics) and waits for the device to confirm.

import { api, errorText } from '../api/client.js';
import { h, showMessage, uid } from '../ui/dom.js';
import { displayUnit, formatNumber, formatValue } from '../ui/format.js';
import type { LiveEntry } from '../state/live.js';

const ON = /^(on|enabled?|yes|true)$/i;
const OFF = /^(off|disabled?|no|false)$/i;

/** Two options that read as on and off: [on, off], else null. */
export function switchOptions(options: readonly string[]): [string, string] | null {
  if (options.length !== 2) return null;
  const on = options.find((o) => ON.test(o));
  const off = options.find((o) => OFF.test(o));
  return on && off ? [on, off] : null;
}

type Writable = NonNullable<LiveEntry['writable']>;

/** A select for choices (none chosen at first), else a number input with the declared range and step. */
function valueControl(id: string, writable: Writable): HTMLSelectElement | HTMLInputElement {
  if ('options' in writable)
    return h(
      'select',
      { id },
      h('option', { value: '', disabled: true }, 'Choose…'),
      writable.options.map((o) => h('option', { value: o }, o)),
    );
  return h('input', {
    id,
    type: 'number',
    min: writable.min,
    max: writable.max,
    step: writable.step,
    inputmode: 'decimal',
  });
}

interface SettingControl {
  element: HTMLElement;
  update(entry: LiveEntry): void;
}

/** An on/off setting as a switch: saved as soon as it is flipped. */
function switchControl(
  id: string,
  topic: string,
  [on, off]: [string, string],
  label: HTMLElement,
  message: HTMLElement,
  save: (value: string) => Promise<void>,
): SettingControl {
  const input = h('input', { id, type: 'checkbox', role: 'switch', class: 'switch' });
  input.addEventListener('change', () => void save(input.checked ? on : off));
  const element = h('div', { class: 'setting switch-row', 'data-topic': topic }, input, label, message);
  return {
    element,
    update(e) {
      input.checked = e.value === on;
    },
  };
}

export function settingControl(entry: LiveEntry, device: string): SettingControl {
  const id = uid('setting');
  const writable = entry.writable!;
  const message = h('p', { class: 'message', hidden: true });
  const current = h('span', { class: 'current' });
  const label = h('label', { for: id }, entry.name, h('span', { class: 'sr-only' }, ` (${device})`));
  let dirty = false;

  const save = async (value: string, button?: HTMLButtonElement) => {
    if (button) button.disabled = true;
    showMessage(message, 'info', 'Saving… (waiting for the device to confirm)');
    try {
      await api('POST', '/metrics', { body: { topic: entry.topic, value } });
      dirty = false;
      showMessage(message, 'ok', `Saved: ${value}${entry.unit ? ` ${displayUnit(entry.unit)}` : ''}.`);
    } catch (err) {
      showMessage(message, 'error', `Not saved: ${errorText(err)}`);
    } finally {
      if (button) button.disabled = false;
    }
  };

  const pair = 'options' in writable ? switchOptions(writable.options) : null;
  if (pair) return switchControl(id, entry.topic, pair, label, message, save);

  const button = h('button', { type: 'submit' }, 'Save');
  const control = valueControl(id, writable);
  control.addEventListener('input', () => (dirty = true));
  const range =
    'options' in writable
      ? null
      : ` · ${formatNumber(writable.min)} to ${formatNumber(writable.max)} ${displayUnit(entry.unit)}, in steps of ${formatNumber(writable.step)}`;
  const form = h(
    'form',
    { class: 'setting', novalidate: true, 'data-topic': entry.topic },
    label,
    h(
      'div',
      { class: 'setting-row' },
      control,
      entry.unit ? h('span', { class: 'unit' }, displayUnit(entry.unit)) : null,
      button,
    ),
    h('p', { class: 'hint' }, current, range),
    message,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (control.value === '') {
      showMessage(
        message,
        'error',
        'options' in writable ? 'Choose a value first.' : `Enter a number from ${writable.min} to ${writable.max}.`,
      );
      return;
    }
    void save(control.value, button);
  });
  return {
    element: form,
    update(e) {
      current.textContent = `Now: ${formatValue(e.value)}${e.value !== null && e.unit ? ` ${displayUnit(e.unit)}` : ''}`;
      if (dirty) return;
      const text = e.value === null ? '' : String(e.value);
      if (control instanceof HTMLSelectElement && ![...control.options].some((o) => o.value === text))
        control.value = '';
      else control.value = text;
    },
  };
}
