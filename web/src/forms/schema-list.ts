// A list in a config form: one fieldset (or input) per item with a Remove button, and an
// Add button, instead of JSON text.

import { h } from '../ui/dom.js';
import {
  hint,
  labelText,
  type Field,
  type FieldBuilder,
  type FieldContext,
  type Issue,
  type JsonSchema,
} from './schema-field.js';

export function listField(
  schema: JsonSchema,
  items: JsonSchema,
  value: unknown,
  path: Array<string | number>,
  ctx: FieldContext,
  required: boolean,
  /** Draws each item's field (the form's own `field`, passed in so this file need not import the form). */
  field: FieldBuilder,
): Field {
  const initial = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const rows: Array<{ field: Field; row: HTMLElement }> = [];
  const list = h('div', { class: 'list-items' });
  const name = labelText(schema, path);
  const add = h('button', { type: 'button', class: 'secondary' }, `Add to ${name}`);
  const element = h(
    'fieldset',
    { class: 'fields list', 'data-path': path.join('.') },
    h('legend', {}, name),
    hint(schema, `list-${path.join('-')}`),
    list,
    h('div', { class: 'actions' }, add),
  );

  const renumber = () => {
    // Paths follow positions, so an issue about item 2 lands on the second row.
    const rebuilt = rows.map((r) => r.field.read());
    rows.splice(0).forEach((r) => r.row.remove());
    for (const read of rebuilt) addRow(read.ok && read.present ? read.value : undefined);
  };
  const addRow = (item: unknown) => {
    const index = rows.length;
    const child = field(items, item, [...path, index], ctx, true);
    const remove = h(
      'button',
      { type: 'button', class: 'secondary small', 'aria-label': `Remove item ${index + 1} of ${name}` },
      'Remove',
    );
    const row = h('div', { class: 'list-row' }, child.element, remove);
    const entry = { field: child, row };
    remove.addEventListener('click', () => {
      rows.splice(rows.indexOf(entry), 1);
      row.remove();
      renumber();
      add.focus();
    });
    rows.push(entry);
    list.append(row);
  };
  for (const item of initial) addRow(item);
  add.addEventListener('click', () => {
    addRow(items.default);
    rows[rows.length - 1]!.row.querySelector<HTMLElement>('input, select, textarea')?.focus();
  });

  return {
    element,
    read() {
      const values: unknown[] = [];
      const issues: Issue[] = [];
      for (const { field } of rows) {
        const read = field.read();
        if (!read.ok) issues.push(...read.issues);
        else values.push(read.present ? read.value : undefined);
      }
      if (issues.length) return { ok: false, issues };
      if (rows.length === 0 && !required) return { ok: true, present: false };
      return { ok: true, present: true, value: values };
    },
  };
}
