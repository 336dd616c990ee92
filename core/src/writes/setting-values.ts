/*
 * The rules of the three kinds of setting (options, range, switch): what clients see as
 * allowed, how a written text is validated and converted to what the handler takes, and
 * how a handler's failure reads. The one copy of these rules: the server's write path and
 * the SDK's test host both run it.
 */
import type { MetricValue, SettingDeclaration, SettingOption } from '@heliograph/plugins-sdk';
import { errorMessage } from '../log.js';
import type { Writable } from '../topics/registry.js';

/** A setting's kind, from its declaration (`kind`, else which fields it has). */
export function settingKind(setting: SettingDeclaration): 'options' | 'range' | 'switch' {
  if (setting.kind === 'switch') return 'switch';
  return setting.options !== undefined ? 'options' : 'range';
}

/** The options of an options setting as value/label pairs; plain strings are both. */
export function optionPairs(options: SettingDeclaration['options']): SettingOption[] {
  return (options ?? []).map((o) => (typeof o === 'string' ? { value: o, label: o } : o));
}

/** What clients see as allowed; throws for a declaration that describes no valid set. */
export function writableOf(setting: SettingDeclaration, topic: string): Writable {
  if (setting.kind === 'switch') {
    const on = setting.on ?? 'ON';
    const off = setting.off ?? 'OFF';
    if (on.toLowerCase() === off.toLowerCase()) throw new Error(`setting ${topic}: on and off must differ`);
    return { options: [on, off], switch: { on, off } };
  }
  if (setting.options !== undefined) {
    const labels = optionPairs(setting.options).map((o) => o.label);
    if (labels.length === 0) throw new Error(`setting ${topic} needs at least one option`);
    return { options: labels };
  }
  if (typeof setting.min !== 'number' || typeof setting.max !== 'number' || setting.min > setting.max)
    throw new Error(`setting ${topic} needs either options or min and max (min <= max)`);
  return { min: setting.min, max: setting.max, step: setting.step ?? 1 };
}

/** A validated write: what the handler gets, and what the snapshot shows once it succeeded. */
export interface ParsedWrite {
  args: { value: string | number | boolean; label?: string };
  shown: MetricValue;
}

/**
 * Validates a written text against a setting and converts it for the handler: the option
 * whose label matches (case-insensitively), a number in range (rounded to the step grid), or for a
 * switch its on/off payload or `true`/`false` (case-insensitively).
 */
export function parseSettingValue(
  setting: SettingDeclaration,
  writable: Writable,
  raw: string,
): { ok: true; write: ParsedWrite } | { ok: false; message: string } {
  const text = raw.trim().toLowerCase();
  if ('options' in writable && writable.switch) {
    const { on, off } = writable.switch;
    if (text === on.toLowerCase() || text === 'true') return accepted({ value: true }, on);
    if (text === off.toLowerCase() || text === 'false') return accepted({ value: false }, off);
    return { ok: false, message: `value "${raw}" is not allowed; allowed values: "${on}", "${off}"` };
  }
  if ('options' in writable) {
    const pairs = optionPairs(setting.options);
    const match = pairs.find((o) => o.label === raw) ?? pairs.find((o) => o.label.toLowerCase() === text);
    if (match === undefined)
      return {
        ok: false,
        message: `value "${raw}" is not allowed; allowed values: ${writable.options.map((o) => `"${o}"`).join(', ')}`,
      };
    return accepted({ value: match.value, label: match.label }, match.label);
  }
  // Decimal numbers only: Number() would also take hex, octal and binary literals ("0x10").
  return inRange(writable, DECIMAL.test(text) ? Number(text) : NaN, raw);
}

/** A number for a range setting: in range and rounded to its step grid, or refused saying what `written` should be. */
function inRange(
  writable: Extract<Writable, { min: number }>,
  value: number,
  written: string | number,
): { ok: true; write: ParsedWrite } | { ok: false; message: string } {
  const { min, max, step } = writable;
  if (!Number.isFinite(value) || value < min || value > max)
    return {
      ok: false,
      message: `value "${written}" is not allowed; expected a number from ${min} to ${max}${step ? ` in steps of ${step}` : ''}`,
    };
  const onGrid = onStepGrid(value, min, max, step);
  return accepted({ value: onGrid }, onGrid);
}

/** What a plugin may write to a setting (`ctx.site.write`): text as the API takes it, or the typed value. */
export type WrittenValue = string | number | boolean;

/**
 * Validates a plugin's typed value against a setting without a text round trip: an options
 * setting takes an option's value (as declared) or its label, a range setting a number in
 * range (rounded to the step grid), a switch a boolean. Text goes through
 * {@link parseSettingValue}, as the API's writes do.
 */
export function parseWrittenValue(
  setting: SettingDeclaration,
  writable: Writable,
  value: WrittenValue,
): { ok: true; write: ParsedWrite } | { ok: false; message: string } {
  if (typeof value === 'boolean') {
    if ('options' in writable && writable.switch) {
      const { on, off } = writable.switch;
      return accepted({ value }, value ? on : off);
    }
    return { ok: false, message: `value "${value}" is not allowed; only a switch takes true or false` };
  }
  if ('options' in writable && !writable.switch) {
    const match = optionPairs(setting.options).find((o) => o.value === value);
    if (match !== undefined) return accepted({ value: match.value, label: match.label }, match.label);
  }
  if (typeof value === 'number' && 'min' in writable) return inRange(writable, value, value);
  return parseSettingValue(setting, writable, String(value));
}

/** A number as people write it: digits, an optional fraction and exponent; no hex, octal or binary. */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/**
 * A value in range rounded to the nearest point of the step grid (min, min + step, ...),
 * halves up; a point past max is taken one step lower (docs/api.md). Clients that ignore
 * `step` (the Home Assistant integration offers any number in range) write what the device
 * can take instead of being refused. The figure is cleaned of binary noise (0.1 + 0.2).
 */
export function onStepGrid(value: number, min: number, max: number, step: number): number {
  if (!(step > 0)) return value;
  let steps = Math.floor((value - min) / step + 0.5 + 1e-9);
  if (min + steps * step > max + 1e-9) steps--;
  return Number((min + steps * step).toPrecision(12));
}

function accepted(args: ParsedWrite['args'], shown: MetricValue): { ok: true; write: ParsedWrite } {
  return { ok: true, write: { args, shown } };
}

/** Any kind's write handler, for code that passes handlers on without calling them itself. */
export type AnySettingWrite = (
  args: ParsedWrite['args'] & { signal: AbortSignal; together?: Record<string, string | number | boolean> },
) => Promise<void>;

/** Calls a setting's handler with a value {@link parseSettingValue} produced for it. */
export function callWrite(
  setting: SettingDeclaration,
  parsed: ParsedWrite,
  signal: AbortSignal,
  together?: Record<string, string | number | boolean>,
): Promise<void> {
  return (setting.write as AnySettingWrite).call(setting, {
    ...parsed.args,
    signal,
    ...(together ? { together } : {}),
  });
}

/**
 * How a failed write reads in the API and audit log: the device refused (with its answer),
 * did not answer, or something else failed. Told apart by the error's name, so errors that
 * crossed a worker boundary (or came from another copy of the SDK) read the same.
 */
export function writeFailureMessage(err: unknown): string {
  const e = err as { name?: unknown; answer?: unknown } | null;
  if (e?.name === 'DeviceRefusedError' && typeof e.answer === 'string') return `the device refused: ${e.answer}`;
  if (e?.name === 'NoAnswerError') return `the device did not answer: ${errorMessage(err)}`;
  return `write failed: ${errorMessage(err)}`;
}
