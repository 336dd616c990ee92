// The rules of the three kinds of setting, as the write path and the SDK's test host run them:
// what clients see as allowed, each refusal's text, the step grid, case-insensitive options and
// switch payloads, and how a failed write reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeviceRefusedError, NoAnswerError, type SettingDeclaration } from '@heliograph/plugins-sdk';
import {
  callWrite,
  optionPairs,
  parseSettingValue,
  parseWrittenValue,
  settingKind,
  writableOf,
  writeFailureMessage,
} from '../../src/writes/setting-values.js';

const write = async () => {};
const range = (extra: Partial<{ min: number; max: number; step: number }> = {}): SettingDeclaration => ({
  name: 'max_charge_current',
  displayName: 'Max charge current',
  min: 0,
  max: 100,
  write,
  ...extra,
});
const options = (opts: unknown): SettingDeclaration =>
  ({ name: 'work_mode', displayName: 'Work mode', options: opts, write }) as never;
const toggle = (extra: { on?: string; off?: string } = {}): SettingDeclaration =>
  ({ name: 'grid_charge', displayName: 'Grid charge', kind: 'switch', write, ...extra }) as never;

/** Parses `raw` against `setting` as the write path does. */
const parse = (setting: SettingDeclaration, raw: string) =>
  parseSettingValue(setting, writableOf(setting, 'inverter_1/x'), raw);

test('a setting is a switch by its kind, else options when it has them, else a range', () => {
  assert.equal(settingKind(toggle()), 'switch');
  assert.equal(settingKind(options(['A'])), 'options');
  assert.equal(settingKind(options([])), 'options');
  assert.equal(settingKind(range()), 'range');
  assert.equal(settingKind({ ...range(), kind: 'range' } as never), 'range');
});

test('options as plain strings are their own labels; pairs stay as they are', () => {
  assert.deepEqual(optionPairs(['Eco', 'Backup']), [
    { value: 'Eco', label: 'Eco' },
    { value: 'Backup', label: 'Backup' },
  ]);
  assert.deepEqual(optionPairs([{ value: 2, label: 'Zero export' }]), [{ value: 2, label: 'Zero export' }]);
  assert.deepEqual(optionPairs(undefined), []);
});

test('what clients see as allowed, and the declarations that describe no valid set', () => {
  assert.deepEqual(writableOf(toggle(), 't'), { options: ['ON', 'OFF'], switch: { on: 'ON', off: 'OFF' } });
  assert.deepEqual(writableOf(toggle({ on: 'Enabled', off: 'Disabled' }), 't'), {
    options: ['Enabled', 'Disabled'],
    switch: { on: 'Enabled', off: 'Disabled' },
  });
  assert.throws(() => writableOf(toggle({ on: 'on', off: 'ON' }), 'inverter_1/x'), {
    message: 'setting inverter_1/x: on and off must differ',
  });
  assert.deepEqual(writableOf(options([{ value: 0, label: 'Eco' }, 'Backup']), 't'), { options: ['Eco', 'Backup'] });
  assert.throws(() => writableOf(options([]), 'inverter_1/x'), {
    message: 'setting inverter_1/x needs at least one option',
  });
  assert.deepEqual(writableOf(range({ min: 10, max: 20 }), 't'), { min: 10, max: 20, step: 1 });
  assert.deepEqual(writableOf(range({ step: 0.5 }), 't'), { min: 0, max: 100, step: 0.5 });
  assert.deepEqual(writableOf(range({ min: 5, max: 5 }), 't'), { min: 5, max: 5, step: 1 }, 'min = max is one value');
  const noSet = 'setting inverter_1/x needs either options or min and max (min <= max)';
  assert.throws(() => writableOf(range({ min: 6, max: 5 }), 'inverter_1/x'), { message: noSet });
  assert.throws(() => writableOf({ ...range(), min: undefined } as never, 'inverter_1/x'), { message: noSet });
  assert.throws(() => writableOf({ ...range(), max: undefined } as never, 'inverter_1/x'), { message: noSet });
});

test('a switch takes its payloads or true/false, in any case and with spaces around', () => {
  const s = toggle({ on: 'Enabled', off: 'Disabled' });
  for (const raw of ['Enabled', 'enabled', ' ENABLED ', 'true', 'TRUE'])
    assert.deepEqual(parse(s, raw), { ok: true, write: { args: { value: true }, shown: 'Enabled' } }, raw);
  for (const raw of ['Disabled', 'disabled', 'false', ' False'])
    assert.deepEqual(parse(s, raw), { ok: true, write: { args: { value: false }, shown: 'Disabled' } }, raw);
  assert.deepEqual(parse(s, 'ON'), {
    ok: false,
    message: 'value "ON" is not allowed; allowed values: "Enabled", "Disabled"',
  });
  assert.equal(parse(toggle(), 'on').ok, true);
  assert.deepEqual(parse(toggle(), 'off'), { ok: true, write: { args: { value: false }, shown: 'OFF' } });
});

test('an option is found by its label, exactly first, then case-insensitively; its value goes to the handler', () => {
  const s = options([
    { value: 0, label: 'Eco' },
    { value: 1, label: 'ECO' },
    { value: 2, label: 'Zero export' },
  ]);
  assert.deepEqual(parse(s, 'ECO'), { ok: true, write: { args: { value: 1, label: 'ECO' }, shown: 'ECO' } });
  assert.deepEqual(parse(s, 'Eco'), { ok: true, write: { args: { value: 0, label: 'Eco' }, shown: 'Eco' } });
  assert.deepEqual(parse(s, ' zero EXPORT '), {
    ok: true,
    write: { args: { value: 2, label: 'Zero export' }, shown: 'Zero export' },
  });
  assert.deepEqual(parse(s, 'Backup'), {
    ok: false,
    message: 'value "Backup" is not allowed; allowed values: "Eco", "ECO", "Zero export"',
  });
});

test('a range takes a number from min to max, rounded to the step grid counted from min', () => {
  const s = range({ min: 10, max: 20, step: 2.5 });
  const refusal = (raw: string) => ({
    ok: false,
    message: `value "${raw}" is not allowed; expected a number from 10 to 20 in steps of 2.5`,
  });
  for (const [raw, value] of [
    ['10', 10],
    ['12.5', 12.5],
    [' 20 ', 20],
    ['1.5e1', 15],
    ['11', 10],
    ['11.25', 12.5],
    ['19.9', 20],
  ] as const)
    assert.deepEqual(parse(s, raw), { ok: true, write: { args: { value }, shown: value } }, raw);
  for (const raw of ['9.99', '7.5', '20.01', '22.5', '', '  ', 'ten', 'Infinity', 'NaN', '0x10'])
    assert.deepEqual(parse(s, raw), refusal(raw), raw);
  assert.equal(parse(range(), '').ok, false, 'an empty text is not 0');
  assert.equal(parse(range(), ' ').ok, false, 'nor is a blank one');
  // The grid starts at min: 0.1 steps from 0.05 take 0.3 to 0.35 (halves up), within float error.
  assert.deepEqual(parse(range({ min: 0.05, max: 1, step: 0.1 }), '0.3'), {
    ok: true,
    write: { args: { value: 0.35 }, shown: 0.35 },
  });
  assert.deepEqual(parse(range({ min: 1, max: 10, step: 3 }), '3'), {
    ok: true,
    write: { args: { value: 4 }, shown: 4 },
  });
  // A point past max is taken one step lower: 1, 4, 7, 10 with max 9 ends at 7.
  assert.deepEqual(parse(range({ min: 1, max: 9, step: 3 }), '8.9'), {
    ok: true,
    write: { args: { value: 7 }, shown: 7 },
  });
  // A declaration may turn the grid off with step 0: any number in range.
  const free = { ...range({ min: 0, max: 1 }) };
  const anyNumber = parseSettingValue(free, { min: 0, max: 1, step: 0 }, '0.123');
  assert.deepEqual(anyNumber, { ok: true, write: { args: { value: 0.123 }, shown: 0.123 } });
  assert.deepEqual(parseSettingValue(free, { min: 0, max: 1, step: 0 }, '2'), {
    ok: false,
    message: 'value "2" is not allowed; expected a number from 0 to 1',
  });
});

test('a signed number is a number; a typed one from a plugin keeps the same rules without text', () => {
  const signed = range({ min: -10, max: 10, step: 1 });
  assert.deepEqual(parse(signed, '-5'), { ok: true, write: { args: { value: -5 }, shown: -5 } });
  assert.deepEqual(parse(signed, '+5'), { ok: true, write: { args: { value: 5 }, shown: 5 } });
  assert.equal(parse(signed, '~5').ok, false);
  for (const [raw, value] of [
    ['1.5e+1', 15],
    ['150e-01', 15],
    ['.25e2', 25],
  ] as const)
    assert.deepEqual(parse(range(), raw), { ok: true, write: { args: { value }, shown: value } }, raw);
  const typed = (setting: SettingDeclaration, value: string | number | boolean) =>
    parseWrittenValue(setting, writableOf(setting, 'inverter_1/x'), value);
  const s = range({ min: 10, max: 20, step: 2.5 });
  assert.deepEqual(typed(s, 10), { ok: true, write: { args: { value: 10 }, shown: 10 } }, 'min is in range');
  assert.deepEqual(typed(s, 20), { ok: true, write: { args: { value: 20 }, shown: 20 } }, 'max is in range');
  assert.deepEqual(typed(s, 11.25), { ok: true, write: { args: { value: 12.5 }, shown: 12.5 } });
  assert.deepEqual(typed(s, 20.01), {
    ok: false,
    message: 'value "20.01" is not allowed; expected a number from 10 to 20 in steps of 2.5',
  });
  assert.deepEqual(typed(toggle(), true), { ok: true, write: { args: { value: true }, shown: 'ON' } });
  assert.deepEqual(typed(options([{ value: 'charge', label: 'Charge' }]), true), {
    ok: false,
    message: 'value "true" is not allowed; only a switch takes true or false',
  });
  assert.deepEqual(typed(s, true).ok, false, 'nor does a range');
  const modes = options([
    { value: 'charge', label: 'Charge' },
    { value: 'normal', label: 'Normal' },
  ]);
  assert.deepEqual(typed(modes, 'charge'), {
    ok: true,
    write: { args: { value: 'charge', label: 'Charge' }, shown: 'Charge' },
  });
  // An option's value that is not its label is found by the value, not read as text.
  assert.deepEqual(typed(options([{ value: 'mode_2', label: 'Charge' }]), 'mode_2'), {
    ok: true,
    write: { args: { value: 'mode_2', label: 'Charge' }, shown: 'Charge' },
  });
  assert.deepEqual(
    typed(modes, 'Normal'),
    { ok: true, write: { args: { value: 'normal', label: 'Normal' }, shown: 'Normal' } },
    'a label too',
  );
});

test("callWrite calls the setting's own handler with the parsed value and the signal", async () => {
  const calls: unknown[] = [];
  const setting: SettingDeclaration = {
    ...range(),
    write(this: unknown, args: unknown) {
      calls.push({ self: this === setting, args });
      return Promise.resolve();
    },
  };
  const signal = new AbortController().signal;
  await callWrite(setting, { args: { value: 40 }, shown: 40 }, signal);
  assert.deepEqual(calls, [{ self: true, args: { value: 40, signal } }]);
});

test('a failed write reads as refused, not answered, or failed', () => {
  assert.equal(
    writeFailureMessage(new DeviceRefusedError({ answer: 'exception 2 (illegal data address)' })),
    'the device refused: exception 2 (illegal data address)',
  );
  assert.equal(
    writeFailureMessage(new NoAnswerError({ message: 'no reply within 1500 ms' })),
    'the device did not answer: no reply within 1500 ms',
  );
  // By name, so an error that crossed a worker boundary reads the same.
  assert.equal(
    writeFailureMessage({ name: 'DeviceRefusedError', answer: '(NAK', message: 'x' }),
    'the device refused: (NAK',
  );
  assert.equal(writeFailureMessage({ name: 'DeviceRefusedError', answer: 5 }), 'write failed: [object Object]');
  assert.equal(writeFailureMessage(new Error('socket closed')), 'write failed: socket closed');
  assert.equal(writeFailureMessage(null), 'write failed: null');
  assert.equal(writeFailureMessage('plain'), 'write failed: plain');
});
