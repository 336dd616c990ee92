// A number field of a config form: the range in plain words, exclusive bounds said as
// such ("more than 0"), whole numbers stepped by one, and the browser's own check of a
// value the form can catch before anything is sent.

import { h, uid } from '../ui/dom.js';
import { formatNumber } from '../ui/format.js';
import { hint, wrap, type Field, type FieldContext, type JsonSchema } from './schema-field.js';

// zod writes the safe-integer range on every .int(); it is no limit worth showing.
const SAFE = Number.MAX_SAFE_INTEGER;

const shown = (n: number | undefined) => (n !== undefined && Math.abs(n) < SAFE ? n : undefined);

/** "from 1 to 65535", "more than 0", "at most 100", or null. */
export function rangeWords(schema: JsonSchema): string | null {
  const min = shown(schema.minimum);
  const max = shown(schema.maximum);
  const xmin = shown(schema.exclusiveMinimum);
  const xmax = shown(schema.exclusiveMaximum);
  const low =
    min !== undefined ? `at least ${formatNumber(min)}` : xmin !== undefined ? `more than ${formatNumber(xmin)}` : null;
  const high =
    max !== undefined ? `at most ${formatNumber(max)}` : xmax !== undefined ? `less than ${formatNumber(xmax)}` : null;
  if (min !== undefined && max !== undefined) return `from ${formatNumber(min)} to ${formatNumber(max)}`;
  return [low, high].filter(Boolean).join(' and ') || null;
}

export function numberField(
  schema: JsonSchema,
  value: unknown,
  path: Array<string | number>,
  ctx: FieldContext,
  nullable: boolean,
): Field {
  const id = uid('cfg');
  const integer = schema.type === 'integer';
  const step = schema.multipleOf ?? (integer ? 1 : 'any');
  const input = h('input', {
    id,
    type: 'number',
    value: typeof value === 'number' ? value : '',
    min: shown(schema.minimum),
    max: shown(schema.maximum),
    step,
    inputmode: integer ? 'numeric' : 'decimal',
  });
  const range = rangeWords(schema);
  const words = [integer ? 'A whole number' : null, range].filter(Boolean).join(', ');
  return {
    element: wrap(
      id,
      schema,
      path,
      ctx,
      input,
      hint(schema, id, words ? words.charAt(0).toUpperCase() + words.slice(1) : undefined),
    ),
    read() {
      if (input.validity.badInput)
        return {
          ok: false,
          issues: [{ path, message: 'Not a number: use digits, with a point or comma for decimals.' }],
        };
      if (input.value === '') return nullable ? { ok: true, present: true, value: null } : { ok: true, present: false };
      return { ok: true, present: true, value: Number(input.value) };
    },
  };
}
