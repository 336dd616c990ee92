import { api, ApiError } from './api.js';
import { formatValue, h, replace, showMessage, uid } from './dom.js';
import { deviceOf, type Metric } from './types.js';

/** Metrics grouped by device, devices in snapshot order except Total, which comes first. */
function byDevice(metrics: Metric[]): Map<string, Metric[]> {
  const groups = new Map<string, Metric[]>();
  for (const metric of [...metrics].sort((a, b) => Number(!a.topic.startsWith('total/')) - Number(!b.topic.startsWith('total/')))) {
    const device = deviceOf(metric);
    let group = groups.get(device);
    if (!group) groups.set(device, (group = []));
    group.push(metric);
  }
  return groups;
}

/**
 * The live table: one table per device. Rebuilt only when the set of topics changes;
 * otherwise only the value cells are updated, so the page does not flicker on a Pi.
 */
export class LiveMetrics {
  private cells = new Map<string, HTMLElement>();
  private layout = '';

  constructor(private readonly container: HTMLElement) {}

  render(metrics: Metric[]): void {
    const layout = metrics.map((m) => m.topic).join('\n');
    if (layout !== this.layout) this.build(metrics, layout);
    for (const metric of metrics) {
      const cell = this.cells.get(metric.topic);
      const text = formatValue(metric.value);
      if (cell && cell.textContent !== text) cell.textContent = text;
    }
  }

  private build(metrics: Metric[], layout: string): void {
    this.layout = layout;
    this.cells.clear();
    if (metrics.length === 0) {
      replace(this.container, h('p', {}, 'No metrics yet: no plugin has declared any. Check the Plugins section below.'));
      return;
    }
    const tables = [...byDevice(metrics)].map(([device, rows]) =>
      h(
        'table',
        { class: 'metrics' },
        h('caption', {}, device),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Metric'), h('th', { scope: 'col', class: 'num' }, 'Value'), h('th', { scope: 'col' }, 'Unit'))),
        h(
          'tbody',
          {},
          rows.map((metric) => {
            const value = h('td', { class: 'num value', 'data-topic': metric.topic });
            this.cells.set(metric.topic, value);
            return h('tr', { title: metric.topic }, h('th', { scope: 'row' }, metric.name), value, h('td', { class: 'unit' }, metric.unit));
          }),
        ),
      ),
    );
    replace(this.container, h('div', { class: 'device-grid' }, tables));
  }
}

interface SettingForm {
  control: HTMLSelectElement | HTMLInputElement;
  current: HTMLElement;
  /** The user changed the control and has not saved: do not overwrite it on refresh. */
  dirty: boolean;
}

/**
 * One small form per writable metric: a select for enumerated values, a number input with
 * the declared range for numbers. Saving posts the value as a string, as the API expects;
 * the API's own message is shown when it refuses.
 */
export class SettingsForms {
  private forms = new Map<string, SettingForm>();
  private layout = '';

  constructor(
    private readonly container: HTMLElement,
    private readonly onSaved: () => void,
  ) {}

  render(metrics: Metric[]): void {
    const writable = metrics.filter((m) => m.writable);
    const layout = JSON.stringify(writable.map((m) => [m.topic, m.writable]));
    if (layout !== this.layout) this.build(writable, layout);
    for (const metric of writable) {
      const form = this.forms.get(metric.topic);
      if (!form) continue;
      form.current.textContent = `Current: ${formatValue(metric.value)}${metric.value !== null && metric.unit ? ` ${metric.unit}` : ''}`;
      if (!form.dirty) setControl(form.control, metric.value);
    }
  }

  private build(writable: Metric[], layout: string): void {
    this.layout = layout;
    this.forms.clear();
    if (writable.length === 0) {
      replace(this.container, h('p', {}, 'No writable settings: the running plugins declare none.'));
      return;
    }
    const groups = [...byDevice(writable)].map(([device, metrics]) =>
      h('fieldset', { class: 'settings-device' }, h('legend', {}, device), metrics.map((m) => this.settingForm(m, device))),
    );
    replace(this.container, groups);
  }

  private settingForm(metric: Metric, device: string): HTMLFormElement {
    const id = uid('setting');
    const writable = metric.writable!;
    const control =
      'options' in writable
        ? h('select', { id }, h('option', { value: '', disabled: true }, '— choose —'), writable.options.map((o) => h('option', { value: o }, o)))
        : h('input', { id, type: 'number', min: writable.min, max: writable.max, step: writable.step, inputmode: 'decimal' });
    const current = h('span', { class: 'current' });
    const message = h('p', { class: 'message', hidden: true });
    const button = h('button', { type: 'submit' }, 'Save');
    const state: SettingForm = { control, current, dirty: false };
    control.addEventListener('input', () => (state.dirty = true));
    setControl(control, metric.value);
    this.forms.set(metric.topic, state);

    const form = h(
      'form',
      { class: 'setting', novalidate: true },
      h('label', { for: id }, metric.name, h('span', { class: 'sr-only' }, ` (${device})`)),
      h('div', { class: 'setting-row' }, control, metric.unit ? h('span', { class: 'unit' }, metric.unit) : null, button),
      h('p', { class: 'hint' }, current, 'options' in writable ? null : ` · ${writable.min} to ${writable.max}, step ${writable.step}`),
      message,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const value = control.value;
      if (value === '') {
        showMessage(message, 'error', 'options' in writable ? 'Choose a value first.' : `Enter a number from ${writable.min} to ${writable.max}.`);
        return;
      }
      button.disabled = true;
      showMessage(message, 'info', 'Saving… (waiting for the device to confirm)');
      try {
        await api('POST', '/metrics', { body: { topic: metric.topic, value } });
        state.dirty = false;
        showMessage(message, 'ok', `Saved: ${value}${metric.unit ? ` ${metric.unit}` : ''}.`);
        this.onSaved();
      } catch (err) {
        showMessage(message, 'error', `Not saved: ${err instanceof ApiError ? err.message : String(err)}`);
        this.onSaved();
      } finally {
        button.disabled = false;
      }
    });
    return form;
  }
}

function setControl(control: HTMLSelectElement | HTMLInputElement, value: Metric['value']): void {
  const text = value === null ? '' : String(value);
  if (control instanceof HTMLSelectElement && ![...control.options].some((o) => o.value === text)) control.value = '';
  else control.value = text;
}

/** Loads the snapshot; the caller renders it. */
export function fetchMetrics(): Promise<Metric[]> {
  return api<Metric[]>('GET', '/metrics');
}
