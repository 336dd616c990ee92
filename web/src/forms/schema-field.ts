// The parts every kind of config field shares (schema-form.ts draws the form; schema-list.ts
// and schema-number.ts draw lists and numbers): the JSON Schema as the form reads it, a
// field and what it reads back, and the label, hint and wrapper around a control. Below
// the form and its field kinds, so they import it and not one another.

import { h } from '../ui/dom.js';
import { humanizeKey } from '../ui/format.js';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  title?: string;
  description?: string;
  format?: string;
  writeOnly?: boolean;
  /** Words to show for each enum value (`.meta({enumLabels})` in the plugin's zod schema). */
  enumLabels?: Record<string, string>;
}

export interface Issue {
  path: Array<string | number>;
  message: string;
}

/** A value read from the form: absent keys are left out of the config. */
export type Read = { ok: true; present: boolean; value?: unknown } | { ok: false; issues: Issue[] };

export interface Field {
  element: HTMLElement;
  read(): Read;
}

export interface FieldContext {
  /** Goes into each label for screen readers only (the instance id), so two instances differ. */
  suffix: string;
  /** Secret fields that have a stored value (their value is never sent to the page). */
  secrets: Record<string, boolean>;
}

/** Draws the field of a schema: schema-form.ts's `field`, handed to a list for its items. */
export type FieldBuilder = (
  schema: JsonSchema,
  value: unknown,
  path: Array<string | number>,
  ctx: FieldContext,
  required: boolean,
) => Field;

/** The key in words, or the schema's title; list items are "Item n". */
export function labelText(schema: JsonSchema, path: Array<string | number>): string {
  const last = path[path.length - 1];
  if (schema.title) return schema.title;
  if (typeof last === 'number') return `Item ${last + 1}`;
  return last === undefined ? 'Config' : humanizeKey(last);
}

export function labelFor(
  id: string,
  schema: JsonSchema,
  path: Array<string | number>,
  ctx: FieldContext,
): HTMLLabelElement {
  return h('label', { for: id }, labelText(schema, path), h('span', { class: 'sr-only' }, ` (${ctx.suffix})`));
}

export function hint(schema: JsonSchema, id: string, extra?: string): HTMLElement | null {
  const text = [schema.description, extra].filter(Boolean).join(' · ');
  return text ? h('p', { class: 'hint', id: `${id}-hint` }, text) : null;
}

export function wrap(
  id: string,
  schema: JsonSchema,
  path: Array<string | number>,
  ctx: FieldContext,
  control: HTMLElement,
  help: HTMLElement | null,
): HTMLElement {
  if (help) control.setAttribute('aria-describedby', help.id);
  return h('div', { class: 'field', 'data-path': path.join('.') }, labelFor(id, schema, path, ctx), control, help);
}
