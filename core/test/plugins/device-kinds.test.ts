// Devices of a plugin's own kind (planner_1): ids, the clients' device fields, the manifest rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deviceFromId, manifestSchema } from '@heliograph/plugins-sdk';
import { instanceSchema } from '../../src/plugins/instances/instances.js';
import { deviceFields } from '../../src/topics/device.js';

test('device ids are <kind>_<N>: inverters, batteries and kinds of a plugin of its own', () => {
  assert.deepEqual(deviceFromId('inverter_2'), {
    id: 'inverter_2',
    kind: 'inverter',
    number: 1,
    name: 'Inverter 2',
    config: {},
  });
  assert.deepEqual(deviceFromId('planner_1'), {
    id: 'planner_1',
    kind: 'planner',
    number: 0,
    name: 'Planner 1',
    config: {},
  });
  assert.equal(deviceFromId('ev_charger_3').kind, 'ev_charger');
  assert.equal(deviceFromId('ev_charger_3').name, 'Ev charger 3');
  for (const bad of ['planner', 'planner_0', 'Planner_1', '1x_1', 'ev__charger_1', 'planner_01'])
    assert.throws(() => deviceFromId(bad), /is not of the form <kind>_<N>/, bad);
  assert.throws(() => deviceFromId('total_1'), /"total" is reserved for the API's own topics/);
});

test("clients see a plugin's own kind as its own device category, numbered from 0", () => {
  assert.deepEqual(deviceFields('planner_1'), { device: 'planner', number: 0 });
  assert.deepEqual(deviceFields('ev_charger_2'), { device: 'ev_charger', number: 1 });
  assert.deepEqual(deviceFields('inverter_1'), { device: 'inverters', number: 0 });
  assert.deepEqual(deviceFields('battery_3'), { device: 'batteries', number: 2 });
  assert.deepEqual(deviceFields('total'), { device: 'totals', number: null });
});

test('a manifest may name its own device kinds, never a reserved one; plugins.json takes their ids', () => {
  const manifest = { id: 'planner', kind: 'integration', sdk: '^1', devices: { kinds: ['planner'], min: 1, max: 1 } };
  assert.deepEqual(manifestSchema.parse(manifest).devices?.kinds, ['planner']);
  const reserved = manifestSchema.safeParse({ ...manifest, devices: { kinds: ['weather'] } });
  assert.equal(reserved.success, false);
  assert.match(JSON.stringify(reserved.error?.issues), /reserved for the API's own topics/);
  assert.equal(manifestSchema.safeParse({ ...manifest, devices: { kinds: ['Planner'] } }).success, false);
  const entry = instanceSchema.parse({ id: 'planner', plugin: 'planner', devices: ['planner_1'] });
  assert.deepEqual(entry.devices, ['planner_1']);
  assert.equal(instanceSchema.safeParse({ id: 'x', plugin: 'x', devices: ['grid_1'] }).success, false);
});

test("a plugin's id is never rest or ws, the audit's own via values", () => {
  for (const id of ['rest', 'ws'])
    assert.match(
      JSON.stringify(manifestSchema.safeParse({ id, kind: 'integration', sdk: '^1' }).error?.issues),
      /is reserved/,
    );
});
