// Draws a plugin's config form from its JSON Schema (converted by the core from the
// plugin's own zod schema, so the form and the validation never disagree) and reads the
// form back into a config object. Labels and help come from the schema's titles and
// descriptions (else the key in words), lists are repeatable fieldsets, choices are
// selects, and each field's container carries `data-path` so the API's field-level issues
// land at the field (field-errors.ts). The server validates; the form only shapes input.

import { h, uid } from '../ui/dom.js';
import {
  hint,
  labelFor,
  labelText,
  wrap,
  type Field,
  type FieldContext,
  type Issue,
  type JsonSchema,
} from './schema-field.js';
import { listField } from './schema-list.js';
import { numberField } from './schema-number.js';

export type { Field, Issue, JsonSchema } from './schema-field.js';

/** The form fields of a config. */
export function configFields(
  schema: JsonSchema,
  config: unknown,
  suffix: string,
  secrets: Record<string, boolean> = {},
): Field {
  const ctx: FieldContext = { suffix, secrets };
  if (isObject(schema)) return objectField(schema, asRecord(config), [], ctx, true);
  return jsonField(schema, config, [], ctx);
}

export function isObject(schema: JsonSchema): boolean {
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

/** Choices with labels: `enum`, or `oneOf`/`anyOf` of `{const, title}`. */
function choicesOf(schema: JsonSchema): Array<{ value: unknown; label: string }> | null {
  if (schema.enum)
    return schema.enum.map((value) => ({
      value,
      label: schema.enumLabels?.[String(value)] ?? (typeof value === 'string' ? choiceLabel(value) : String(value)),
    }));
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants && variants.length > 0 && variants.every((v) => 'const' in v)) {
    return variants.map((v) => ({ value: v.const, label: v.title ?? v.description ?? String(v.const) }));
  }
  return null;
}

/** `daily` → "Daily", `SBU_priority` → "SBU priority"; codes in capitals stay as they are. */
function choiceLabel(value: string): string {
  if (/^[A-Z0-9-]+$/.test(value)) return value;
  const words = value.replace(/[_]/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An array, or "one X or a list of X" (a list is always accepted then). */
function listItems(schema: JsonSchema): JsonSchema | null {
  if (schema.type === 'array' && schema.items) return schema.items;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length === 2) {
    const list = variants.find((v) => v.type === 'array' && v.items);
    const single = variants.find((v) => v !== list);
    if (list && single && single.type === list.items!.type) return list.items!;
  }
  return null;
}

export function field(
  raw: JsonSchema,
  value: unknown,
  path: Array<string | number>,
  ctx: FieldContext,
  required: boolean,
): Field {
  const { schema, nullable } = unwrapNullable(raw);
  const choices = choicesOf(schema);
  if (choices) return choiceField(schema, choices, value, path, ctx, required || !nullable, nullable);
  if (isObject(schema)) return objectField(schema, asRecord(value), path, ctx, required);
  const items = listItems(schema);
  if (items) return listField(schema, items, value, path, ctx, required, field);
  switch (schema.type) {
    case 'string':
      return textField(schema, value, path, ctx, required, nullable);
    case 'number':
    case 'integer':
      return numberField(schema, value, path, ctx, nullable);
    case 'boolean':
      return booleanField(schema, value, path, ctx);
    default:
      return jsonField(schema, value, path, ctx);
  }
}

function objectField(
  schema: JsonSchema,
  value: Record<string, unknown>,
  path: Array<string | number>,
  ctx: FieldContext,
  required: boolean,
): Field {
  const requiredKeys = new Set(schema.required ?? []);
  const children = Object.entries(schema.properties ?? {}).map(([key, child]) => ({
    key,
    field: field(child, key in value ? value[key] : child.default, [...path, key], ctx, requiredKeys.has(key)),
  }));
  const body = children.map((c) => c.field.element);
  const element =
    path.length === 0
      ? h('div', { class: 'fields' }, body)
      : h(
          'fieldset',
          { class: 'fields', 'data-path': path.join('.') },
          h('legend', {}, labelText(schema, path)),
          hint(schema, uid('obj')),
          body,
        );
  return {
    element,
    read() {
      const out: Record<string, unknown> = {};
      const issues: Issue[] = [];
      let any = false;
      for (const { key, field } of children) {
        const read = field.read();
        if (!read.ok) issues.push(...read.issues);
        else if (read.present) {
          out[key] = read.value;
          any = true;
        }
      }
      if (issues.length) return { ok: false, issues };
      return { ok: true, present: required || any, value: out };
    },
  };
}

function choiceField(
  schema: JsonSchema,
  choices: Array<{ value: unknown; label: string }>,
  value: unknown,
  path: Array<string | number>,
  ctx: FieldContext,
  required: boolean,
  nullable: boolean,
): Field {
  const id = uid('cfg');
  const index = choices.findIndex((o) => o.value === value);
  const select = h(
    'select',
    { id },
    required && index >= 0 ? null : h('option', { value: '' }, nullable ? '(none)' : 'Choose…'),
    choices.map((o, i) => h('option', { value: String(i), selected: i === index }, o.label)),
  );
  return {
    element: wrap(id, schema, path, ctx, select, hint(schema, id)),
    read: () =>
      select.value === ''
        ? { ok: true, present: nullable, value: null }
        : { ok: true, present: true, value: choices[Number(select.value)]!.value },
  };
}

function textField(
  schema: JsonSchema,
  value: unknown,
  path: Array<string | number>,
  ctx: FieldContext,
  required: boolean,
  nullable: boolean,
): Field {
  const id = uid('cfg');
  const key = path.join('.');
  const secret = schema.writeOnly === true || /pass|secret|token|api_?key/i.test(String(path[path.length - 1] ?? ''));
  const stored = secret && ctx.secrets[key] === true;
  const input = h('input', {
    id,
    type: secret ? 'password' : schema.format === 'uri' ? 'url' : 'text',
    value: typeof value === 'string' ? value : '',
    autocomplete: secret ? 'new-password' : 'off',
    spellcheck: false,
    placeholder: stored ? 'stored: leave empty to keep it' : undefined,
  });
  const extra = stored
    ? 'A value is stored and never shown; type a new one to replace it.'
    : nullable
      ? 'Leave empty for none.'
      : undefined;
  return {
    element: wrap(id, schema, path, ctx, input, hint(schema, id, extra)),
    read() {
      if (input.value !== '') return { ok: true, present: true, value: input.value };
      if (stored) return { ok: true, present: false };
      if (nullable) return { ok: true, present: true, value: null };
      if (required && schema.default === undefined)
        return { ok: false, issues: [{ path, message: 'Required: enter a value.' }] };
      return { ok: true, present: false };
    },
  };
}

function booleanField(schema: JsonSchema, value: unknown, path: Array<string | number>, ctx: FieldContext): Field {
  const id = uid('cfg');
  const input = h('input', { id, type: 'checkbox', role: 'switch', class: 'switch', checked: value === true });
  const help = hint(schema, id);
  if (help) input.setAttribute('aria-describedby', help.id);
  return {
    element: h(
      'div',
      { class: 'field switch-row', 'data-path': path.join('.') },
      input,
      labelFor(id, schema, path, ctx),
      help,
    ),
    read: () => ({ ok: true, present: true, value: input.checked }),
  };
}

/** Anything the form cannot draw as fields (maps, mixed unions): edited as JSON text. */
function jsonField(schema: JsonSchema, value: unknown, path: Array<string | number>, ctx: FieldContext): Field {
  const id = uid('cfg');
  const text = value === undefined ? '' : JSON.stringify(value, null, 2);
  const area = h(
    'textarea',
    { id, rows: Math.min(12, Math.max(3, text.split('\n').length)), spellcheck: false, class: 'json' },
    text,
  );
  return {
    element: wrap(id, schema, path, ctx, area, hint(schema, id, 'Written as JSON')),
    read() {
      if (area.value.trim() === '') return { ok: true, present: false };
      try {
        return { ok: true, present: true, value: JSON.parse(area.value) };
      } catch (err) {
        return { ok: false, issues: [{ path, message: `Not valid JSON: ${(err as Error).message}` }] };
      }
    },
  };
}
