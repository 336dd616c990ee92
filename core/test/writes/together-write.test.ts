// Settings of one device written together (SDK 1.4, `ctx.site.write`'s `together`), on a real
// registry and an audit in a real SQLite file: every part is validated against its own
// declaration with its typed value; one refused part refuses the whole write before the
// device is asked; an accepted one takes one rate-limit token, is one audit entry in words,
// calls the main setting's handler once with the companions, and shows every part's new value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SettingDeclaration } from '@heliograph/plugins-sdk';
import { ManualClock } from '../../src/clock.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import type { AuditEntry } from '../../src/writes/audit.js';
import { WriteRateLimiter } from '../../src/writes/rate-limit.js';
import { WriteService, type WriteRequest } from '../../src/writes/service.js';
import { meta } from '../websocket/harness.js';
import { tempAudit } from './support.js';

const START = Date.parse('2026-11-22T10:00:00Z');
const MODE = 'inverter_1/battery_control_mode';
const POWER = 'inverter_1/battery_control_power';
const TARGET = 'inverter_1/battery_control_target_soc';
const GRID_CHARGE = 'inverter_1/grid_charge';
/** A reading of the device, not a setting. */
const PV = 'inverter_1/pv_power';
/** Declared by another plugin on the same device id (a mistake, refused as a companion). */
const FOREIGN = 'inverter_1/foreign_limit';

/** One handler call: which setting, with what. */
interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** A limiter that counts the tokens taken. */
class CountingLimiter extends WriteRateLimiter {
  taken = 0;
  override take(client: string): number {
    this.taken++;
    return super.take(client);
  }
}

async function start() {
  const clock = new ManualClock(START);
  const registry = new TopicRegistry(clock);
  const { audit, close } = await tempAudit(clock, 'heliograph-together-');
  const limiter = new CountingLimiter(clock);
  const writes = new WriteService(registry, audit, clock, undefined, limiter);
  const calls: Call[] = [];
  const heard: AuditEntry[] = [];
  writes.events.on('written', (entry) => heard.push(entry));
  const handler = (name: string) => (args: Record<string, unknown>) => {
    const { signal: _signal, ...rest } = args;
    calls.push({ name, args: rest });
    return Promise.resolve();
  };
  const settings: Array<[string, SettingDeclaration, Parameters<typeof meta>[1], string | number, string]> = [
    [
      MODE,
      {
        name: 'battery_control_mode',
        displayName: 'Mode',
        options: [
          { value: 'normal', label: 'Normal' },
          { value: 'charge', label: 'Charge' },
        ],
        write: handler('mode'),
      },
      { unit: '', type: 'string', writable: { options: ['Normal', 'Charge'] } },
      'Normal',
      'drv',
    ],
    [
      POWER,
      { name: 'battery_control_power', displayName: 'Power', min: 0, max: 5000, step: 1, write: handler('power') },
      { unit: 'W', writable: { min: 0, max: 5000, step: 1 } },
      5000,
      'drv',
    ],
    [
      TARGET,
      {
        name: 'battery_control_target_soc',
        displayName: 'Target',
        min: 10,
        max: 100,
        step: 1,
        write: handler('target'),
      },
      { unit: '%', writable: { min: 10, max: 100, step: 1 } },
      100,
      'drv',
    ],
    [
      GRID_CHARGE,
      {
        name: 'grid_charge',
        displayName: 'Grid charge',
        kind: 'switch',
        on: 'ON',
        off: 'OFF',
        write: handler('switch'),
      },
      { unit: '', type: 'string', writable: { options: ['ON', 'OFF'], switch: { on: 'ON', off: 'OFF' } } },
      'OFF',
      'drv',
    ],
    [
      FOREIGN,
      { name: 'foreign_limit', displayName: 'Foreign', min: 0, max: 10, write: handler('foreign') },
      { unit: 'A', writable: { min: 0, max: 10, step: 1 } },
      0,
      'other',
    ],
  ];
  registry.define(meta(PV, { unit: 'W', recorded: false }), 1200);
  for (const [topic, setting, fields, initial, owner] of settings) {
    registry.define(meta(topic, { group: 'Settings', recorded: false, ...fields }), initial);
    writes.register(topic, { setting, owner, onError: () => undefined, signal: new AbortController().signal });
  }
  const shown = (topic: string) => registry.visibleValue(registry.get(topic)!);
  const write = (request: Partial<WriteRequest> & Pick<WriteRequest, 'value'>) =>
    writes.write({ topic: MODE, who: 'plugin:planner', via: 'planner', controller: 'planner', ...request });
  return {
    writes,
    audit,
    limiter,
    calls,
    heard,
    shown,
    write,
    close,
  };
}

test('a together-write calls the main handler once with the typed companions, is one audit entry and one token', async (t) => {
  const fx = await start();
  t.after(fx.close);
  const outcome = await fx.write({
    value: 'charge',
    together: { battery_control_power: 3000, battery_control_target_soc: 90 },
  });
  assert.deepEqual(outcome, { ok: true });
  assert.deepEqual(fx.calls, [
    {
      name: 'mode',
      args: {
        value: 'charge',
        label: 'Charge',
        together: { battery_control_power: 3000, battery_control_target_soc: 90 },
      },
    },
  ]);
  assert.equal(fx.limiter.taken, 1, 'one rate-limit token');
  assert.deepEqual(
    fx.heard.map((e) => [e.topic, e.oldValue, e.newValue, e.result]),
    [[MODE, 'Normal, 5000 W, 100 %', 'Charge, 3000 W, 90 %', 'ok']],
  );
  const listed = await fx.audit.list(10);
  assert.deepEqual(
    listed.map((e) => [e.topic, e.new_value, e.result]),
    [[MODE, 'Charge, 3000 W, 90 %', 'ok']],
  );
  assert.deepEqual([fx.shown(MODE), fx.shown(POWER), fx.shown(TARGET)], ['Charge', 3000, 90], 'every part shown');
});

test('a companion out of range, unknown, mistyped or of another plugin refuses the whole write before the device', async (t) => {
  const fx = await start();
  t.after(fx.close);
  const refusals: Array<[Record<string, string | number | boolean>, RegExp]> = [
    [
      { battery_control_power: 9000, battery_control_target_soc: 90 },
      /^battery_control_power: value "9000" is not allowed; expected a number from 0 to 5000/,
    ],
    [
      { battery_control_power: 3000, battery_control_target_soc: 5 },
      /^battery_control_target_soc: value "5" is not allowed/,
    ],
    [
      { battery_control_power: true },
      /^battery_control_power: value "true" is not allowed; only a switch takes true or false/,
    ],
    [{ nothing_here: 1 }, /^nothing_here: unknown topic inverter_1\/nothing_here/],
    [{ pv_power: 1 }, /^pv_power: inverter_1\/pv_power is not writable/],
    [
      { foreign_limit: 1 },
      /^inverter_1\/foreign_limit is not declared by the plugin that declares inverter_1\/battery_control_mode/,
    ],
    [{ battery_control_mode: 'normal' }, /cannot be its own companion/],
  ];
  for (const [together, message] of refusals) {
    const outcome = await fx.write({ value: 'charge', together });
    assert.equal(outcome.ok, false, JSON.stringify(together));
    assert.match(outcome.ok ? '' : outcome.message, message);
  }
  assert.deepEqual(fx.calls, [], 'the device was never asked');
  assert.deepEqual([fx.shown(MODE), fx.shown(POWER), fx.shown(TARGET)], ['Normal', 5000, 100], 'nothing changed');
  const listed = await fx.audit.list(20);
  assert.equal(listed.length, refusals.length, 'each refusal audited once');
  assert.ok(listed.every((e) => e.topic === MODE && e.result === 'error'));
  assert.equal(listed.at(-1)?.new_value, 'charge, 9000, 90', 'what was asked for, in the audit');
});

test("plugin writes keep their types: a number, an option's value or label, a boolean for a switch only", async (t) => {
  const fx = await start();
  t.after(fx.close);
  assert.deepEqual(await fx.write({ topic: POWER, value: 2500.4 }), { ok: true });
  assert.deepEqual(await fx.write({ topic: MODE, value: 'Charge' }), { ok: true }, 'the label as well');
  assert.deepEqual(await fx.write({ topic: GRID_CHARGE, value: true }), { ok: true });
  assert.deepEqual(
    fx.calls.map((c) => [c.name, c.args.value]),
    [
      ['power', 2500],
      ['mode', 'charge'],
      ['switch', true],
    ],
  );
  assert.ok(
    fx.calls.every((c) => !('together' in c.args)),
    'a write of one setting hands its handler no together',
  );
  assert.deepEqual(
    fx.heard.map((e) => e.newValue),
    ['2500', 'Charge', 'ON'],
    "a plugin's value audited as clients see it",
  );
  const wrong = await fx.write({ topic: TARGET, value: false });
  assert.equal(wrong.ok, false);
  const text = await fx.write({ topic: TARGET, value: '0x50' });
  assert.equal(text.ok, false, 'text is parsed as the API parses it: decimal only');
  // A client's text stays as it wrote it; a number it sent (a WebSocket client's JSON) is audited as text.
  assert.deepEqual(await fx.writes.write({ topic: MODE, value: 'normal', who: 'admin', via: 'rest' }), { ok: true });
  assert.equal(fx.heard.at(-1)?.newValue, 'normal');
  assert.deepEqual(await fx.writes.write({ topic: POWER, value: 1800, who: 'admin', via: 'ws' }), { ok: true });
  assert.equal(fx.heard.at(-1)?.newValue, '1800');
});

test("a plugin's write to a topic that is no setting is refused and audited, and claims no battery", async (t) => {
  const fx = await start();
  t.after(fx.close);
  const unknown = await fx.write({ topic: 'inverter_1/nothing_here', value: 1 });
  assert.deepEqual(unknown, { ok: false, message: 'unknown topic inverter_1/nothing_here' });
  const reading = await fx.write({ topic: PV, value: 1 });
  assert.deepEqual(reading, { ok: false, message: `${PV} is not writable` });
  // A value the setting refuses claims nothing either: another controller may still command the battery.
  assert.equal((await fx.write({ value: 'discharge' })).ok, false);
  const ocpp = { controller: 'ocpp', who: 'plugin:ocpp', via: 'ocpp' };
  assert.deepEqual(await fx.write({ value: 'charge', ...ocpp }), { ok: true });
  // The claim holds through a forced command, and ends with the controller's Normal.
  const second = await fx.write({ value: 'normal' });
  assert.match(second.ok ? '' : second.message, /already controlled by ocpp/);
  assert.deepEqual(await fx.write({ value: 'normal', ...ocpp }), { ok: true });
  assert.deepEqual(await fx.write({ value: 'charge' }), { ok: true }, 'the planner may command it again');
  assert.deepEqual(
    fx.heard.map((e) => [e.topic, e.result, e.newValue]),
    [
      ['inverter_1/nothing_here', 'error', '1'],
      [PV, 'error', '1'],
      [MODE, 'error', 'discharge'],
      [MODE, 'ok', 'Charge'],
      [MODE, 'error', 'normal'],
      [MODE, 'ok', 'Normal'],
      [MODE, 'ok', 'Charge'],
    ],
    "a plugin's option value is audited by its label",
  );
});
