// The config form of one plugin instance (or of a new one): fields from the plugin's
// schema, checked in the page for what it can catch, then sent; the API's field-level
// issues are shown at their fields, anything else above the button.

import { ApiError, errorText, type Issue } from '../api/client.js';
import { h, showMessage } from '../ui/dom.js';
import { clearIssues, showIssues } from '../ui/field-errors.js';
import { configFields, type JsonSchema } from './schema-form.js';

export interface ConfigFormOptions {
  label: string;
  schema: unknown;
  config: Record<string, unknown>;
  secrets?: Record<string, boolean>;
  suffix: string;
  submitText: string;
  /** Fields drawn above the config (id, devices); their data-path is the body key. */
  extra?: HTMLElement[];
  /** The body key the config sits under in `send`'s request (`config` for POST /plugins). */
  configKey?: string;
  /** Sends the config; throws ApiError with issues when refused. */
  send(config: Record<string, unknown>): Promise<string>;
}

export function configForm(options: ConfigFormOptions): HTMLFormElement {
  const fields = configFields(options.schema as JsonSchema, options.config, options.suffix, options.secrets ?? {});
  const message = h('p', { class: 'message', hidden: true });
  const button = h('button', { type: 'submit' }, options.submitText);
  // novalidate: the plugin's schema on the server is the judge; its issues name the field.
  const configBox = h('div', { 'data-path': 'config' }, fields.element);
  const form = h(
    'form',
    { class: 'config-form', 'aria-label': options.label, novalidate: true },
    options.extra ?? [],
    configBox,
    h('div', { class: 'actions' }, button),
    message,
  );
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    clearIssues(form);
    const read = fields.read();
    if (!read.ok) {
      showIssues(configBox, read.issues);
      showMessage(message, 'error', 'Not saved: correct the fields marked above.');
      return;
    }
    button.disabled = true;
    showMessage(message, 'info', 'Saving… (the plugin starts with the new config)');
    try {
      showMessage(message, 'ok', await options.send((read.value as Record<string, unknown>) ?? {}));
    } catch (err) {
      const issues: Issue[] = err instanceof ApiError ? err.issues : [];
      const key = options.configKey;
      const inConfig = issues.filter((i) => key === undefined || i.path[0] === key);
      const outside = issues.filter((i) => !inConfig.includes(i));
      // PUT .../config has the config as its body (paths like ["port"]); a server that
      // still names it (["config", "port"]) is understood too.
      const unmatched = [...showIssues(configBox, inConfig, [key ?? 'config']), ...showIssues(form, outside)];
      const rest = unmatched.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
      const text =
        issues.length && unmatched.length === 0
          ? 'Not saved: correct the fields marked above.'
          : `Not saved: ${rest || errorText(err)}`;
      showMessage(message, 'error', text);
    } finally {
      button.disabled = false;
    }
  };
  // save shows its own failures on the page, so its promise can be let go.
  form.addEventListener('submit', (event) => void save(event));
  return form;
}
