// Model 124 storage controls: the driver's plan per mode, and the emulator's effect of the
// rates (forced charging only from the PV surplus unless ChaGriSet allows the grid).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storagePlan } from '../src/battery-control.js';
import { StorageControls } from '../src/emulator/storage-control.js';

test('each mode as StorCtl_Mod, OutWRte, InWRte (% of WChaMax) and ChaGriSet', () => {
  assert.deepEqual(storagePlan({ mode: 'normal', powerW: 1000, targetSoc: 80 }, 4000), {
    mode: 0,
    out: 100,
    in: 100,
    grid: 0,
  });
  assert.deepEqual(storagePlan({ mode: 'hold', powerW: 1000, targetSoc: 80 }, 4000), {
    mode: 2,
    out: 0,
    in: 100,
    grid: 0,
  });
  assert.deepEqual(storagePlan({ mode: 'charge', powerW: 1000, targetSoc: 80 }, 4000), {
    mode: 3,
    out: -25,
    in: 25,
    grid: 1,
  });
  assert.deepEqual(storagePlan({ mode: 'discharge', powerW: 9000, targetSoc: 30 }, 4000), {
    mode: 3,
    out: 100,
    in: -100,
    grid: 0,
  });
});

test('emulator: the rates limit, reverse and force the battery (W, + discharging)', () => {
  const c = new StorageControls(); // WChaMax 3000 W
  assert.equal(c.batteryW(-800, 3000, 5000), 800, 'no limits: the battery covers the deficit');
  c.write(3, 2);
  c.write(10, 0);
  assert.equal(c.batteryW(-800, 3000, 5000), 0, 'discharge limit 0 %: held');
  assert.equal(c.batteryW(500, 3000, 5000), -500, 'PV surplus still charges');
  c.write(3, 3);
  c.write(10, -5000 & 0xffff); // OutWRte -50.00 %
  c.write(11, 5000);
  assert.equal(c.batteryW(-800, 3000, 5000), 0, 'forced charging without ChaGriSet: no PV surplus, nothing');
  assert.equal(c.batteryW(1000, 3000, 5000), -1000, 'from the PV surplus only');
  c.write(15, 1);
  assert.equal(c.batteryW(-800, 3000, 5000), -1500, 'with ChaGriSet = grid: 50 % of WChaMax');
  c.write(10, 8000);
  c.write(11, -8000 & 0xffff);
  assert.equal(c.batteryW(-800, 3000, 5000), 2400, 'forced discharge at 80 % of WChaMax');
  assert.equal(c.batteryW(-800, 3000, 0), 0, 'not below the reserve');
});
