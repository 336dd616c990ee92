// Draws a plugin's config form from its JSON Schema (converted by the core from the
// plugin's own zod schema, so the form and the validation never disagree) and reads the
// form back into a config object. The server validates; the form only shapes the input.

import { h, uid } from './dom.js';

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
  default?: unknown;
  title?: string;
  description?: string;
  format?: string;
}

/** A value read from the form: absent keys are left out of the config. */
export type Read = { ok: true; present: boolean; value?: unknown } | { ok: false; message: string };

export interface Field {
  element: HTMLElement;
  read(): Read;
}

// zod writes the safe-integer range on every .int(); it is no limit worth showing.
const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The form fields of a config. `suffix` goes into each label for screen readers only (the
 * instance id), so two instances of one plugin still have distinct labels.
 */
export function configFields(schema: JsonSchema, config: unknown, suffix: string): Field {
  if (isObject(schema)) return objectField(schema, asRecord(config), [], suffix, true);
  return jsonField(schema, config, ['config'], suffix);
}

function isObject(schema: JsonSchema): boolean {
  return schema.type === 'object' && schema.properties !== undefined;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** `type: ["string", "null"]` and `anyOf: [X, {type: "null"}]` as X plus "may be null". */
function unwrapNullable(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const rest = schema.type.filter((t) => t !== 'null');
    return { schema: { ...schema, type: rest.length === 1 ? rest[0] : rest }, nullable: true };
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const nonNull = variants.filter((v) => v.type !== 'null');
    if (nonNull.length === 1 && nonNull.length < variants.length) {
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      return { schema: { ...rest, ...nonNull[0]! }, nullable: true };
    }
  }
  return { schema, nullable: false };
}

function field(raw: JsonSchema, value: unknown, path: string[], suffix: string, required: boolean): Field {
  const { schema, nullable } = unwrapNullable(raw);
  if (schema.enum) return enumField(schema, value, path, suffix, required || !nullable, nullable);
  if (isObject(schema)) return objectField(schema, asRecord(value), path, suffix, required);
  switch (schema.type) {
    case 'string':
      return textField(schema, value, path, suffix, required, nullable);
    case 'number':
    case 'integer':
      return numberField(schema, value, path, suffix, nullable);
    case 'boolean':
      return booleanField(schema, value, path, suffix);
    default:
      return jsonField(schema, value, path, suffix);
  }
}

function labelFor(id: string, path: string[], suffix: string): HTMLLabelElement {
  return h('label', { for: id }, path.join('.'), h('span', { class: 'sr-only' }, ` (${suffix})`));
}

function hint(schema: JsonSchema, id: string, extra?: string): HTMLElement | null {
  const text = [schema.title, schema.description, extra].filter(Boolean).join(' · ');
  return text ? h('p', { class: 'hint', id: `${id}-hint` }, text) : null;
}

function wrap(id: string, path: string[], suffix: string, control: HTMLElement, help: HTMLElement | null): HTMLElement {
  if (help) control.setAttribute('aria-describedby', help.id);
  return h('div', { class: 'field' }, labelFor(id, path, suffix), control, help);
}

function objectField(schema: JsonSchema, value: Record<string, unknown>, path: string[], suffix: string, required: boolean): Field {
  const requiredKeys = new Set(schema.required ?? []);
  const children = Object.entries(schema.properties ?? {}).map(([key, child]) => ({
    key,
    field: field(child, key in value ? value[key] : child.default, [...path, key], suffix, requiredKeys.has(key)),
  }));
  const body = children.map((c) => c.field.element);
  const element = path.length === 0 ? h('div', { class: 'fields' }, body) : h('fieldset', { class: 'fields' }, h('legend', {}, path.join('.')), hint(schema, uid('obj')), body);
  return {
    element,
    read() {
      const out: Record<string, unknown> = {};
      let any = false;
      for (const { key, field } of children) {
        const read = field.read();
        if (!read.ok) return read;
        if (read.present) {
          out[key] = read.value;
          any = true;
        }
      }
      return { ok: true, present: required || any, value: out };
    },
  };
}

function enumField(schema: JsonSchema, value: unknown, path: string[], suffix: string, required: boolean, nullable: boolean): Field {
  const id = uid('cfg');
  const options = schema.enum!;
  const index = options.findIndex((o) => o === value);
  const select = h(
    'select',
    { id },
    required && index >= 0 ? null : h('option', { value: '' }, nullable ? '(none)' : '(not set)'),
    options.map((o, i) => h('option', { value: String(i), selected: i === index }, String(o))),
  );
  return {
    element: wrap(id, path, suffix, select, hint(schema, id)),
    read: () => (select.value === '' ? { ok: true, present: nullable, value: null } : { ok: true, present: true, value: options[Number(select.value)] }),
  };
}

function textField(schema: JsonSchema, value: unknown, path: string[], suffix: string, required: boolean, nullable: boolean): Field {
  const id = uid('cfg');
  const secret = /pass|secret|token|api_?key/i.test(path[path.length - 1] ?? '');
  const input = h('input', {
    id,
    type: secret ? 'password' : schema.format === 'uri' ? 'url' : 'text',
    value: typeof value === 'string' ? value : '',
    autocomplete: 'off',
    spellcheck: false,
  });
  return {
    element: wrap(id, path, suffix, input, hint(schema, id, nullable ? 'leave empty for none' : undefined)),
    read() {
      if (input.value !== '') return { ok: true, present: true, value: input.value };
      if (nullable) return { ok: true, present: true, value: null };
      return { ok: true, present: required, value: '' };
    },
  };
}

function numberField(schema: JsonSchema, value: unknown, path: string[], suffix: string, nullable: boolean): Field {
  const id = uid('cfg');
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum ?? schema.exclusiveMaximum;
  const shownMin = min !== undefined && Math.abs(min) < SAFE ? min : undefined;
  const shownMax = max !== undefined && Math.abs(max) < SAFE ? max : undefined;
  const step = schema.multipleOf ?? (schema.type === 'integer' ? 1 : 'any');
  const input = h('input', { id, type: 'number', value: typeof value === 'number' ? value : '', min: shownMin, max: shownMax, step, inputmode: 'decimal' });
  const range =
    shownMin !== undefined && shownMax !== undefined ? `${shownMin} to ${shownMax}` : shownMin !== undefined ? `at least ${shownMin}` : shownMax !== undefined ? `at most ${shownMax}` : undefined;
  const kind = schema.type === 'integer' ? 'whole number' : undefined;
  return {
    element: wrap(id, path, suffix, input, hint(schema, id, [kind, range].filter(Boolean).join(', ') || undefined)),
    read() {
      if (input.validity.badInput) return { ok: false, message: `${path.join('.')}: not a number` };
      if (input.value === '') return nullable ? { ok: true, present: true, value: null } : { ok: true, present: false };
      return { ok: true, present: true, value: Number(input.value) };
    },
  };
}

function booleanField(schema: JsonSchema, value: unknown, path: string[], suffix: string): Field {
  const id = uid('cfg');
  const input = h('input', { id, type: 'checkbox', checked: value === true });
  const help = hint(schema, id);
  if (help) input.setAttribute('aria-describedby', help.id);
  return {
    element: h('div', { class: 'field checkbox' }, input, labelFor(id, path, suffix), help),
    read: () => ({ ok: true, present: true, value: input.checked }),
  };
}

/** Anything the form does not draw as fields (arrays, unions, maps): edited as JSON. */
function jsonField(schema: JsonSchema, value: unknown, path: string[], suffix: string): Field {
  const id = uid('cfg');
  const text = value === undefined ? '' : JSON.stringify(value, null, 2);
  const area = h('textarea', { id, rows: Math.min(12, Math.max(3, text.split('\n').length)), spellcheck: false, class: 'json' }, text);
  return {
    element: wrap(id, path, suffix, area, hint(schema, id, 'JSON')),
    read() {
      if (area.value.trim() === '') return { ok: true, present: false };
      try {
        return { ok: true, present: true, value: JSON.parse(area.value) };
      } catch (err) {
        return { ok: false, message: `${path.join('.')}: not valid JSON (${(err as Error).message})` };
      }
    },
  };
}
