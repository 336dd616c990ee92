// Model 124 storage controls: the driver's plan per mode, the registers a command writes (only
// what changes, the revert timeout on every forced one), what the device is read to be doing,
// and the emulator's effect of the rates (forced charging only from the PV surplus unless
// ChaGriSet allows the grid) and its revert countdown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  revertSeconds,
  storageMismatch,
  storageMode,
  storagePlan,
  storageWords,
  storageWrites,
  type StoragePlan,
} from '../src/battery-control.js';
import { ModelData } from '../src/points.js';
import { FULL_RATE, StorageControls } from '../src/emulator/storage-control.js';

const word = (value: number) => value & 0xffff;

/** Model 124's 24 data registers at rest (normal), as the emulator shows them; `points` by data offset. */
function model124(points: Record<number, number> = {}): ModelData {
  const words = [
    3000,
    100,
    100,
    0,
    0xffff,
    10,
    500,
    80,
    510,
    6,
    10000,
    10000,
    0,
    0,
    0,
    0,
    0,
    0,
    0x8000,
    0,
    0xffff,
    0,
    0xffff,
    word(-2),
  ];
  for (const [offset, value] of Object.entries(points)) words[Number(offset)] = value;
  return new ModelData(124, words);
}

/** The model after `writes`, as the device would read. */
function written(data: ModelData, writes: Array<{ offset: number; values: number[] }>): ModelData {
  const words = [...data.words];
  for (const { offset, values } of writes) values.forEach((v, i) => (words[offset + i] = v));
  return new ModelData(124, words);
}

const CHARGE: StoragePlan = { mode: 3, out: -50, in: 50, grid: 1 };

test('each mode as StorCtl_Mod, OutWRte, InWRte (% of WChaMax) and ChaGriSet', () => {
  for (const [command, plan] of [
    [
      { mode: 'normal', powerW: 1000, targetSoc: 80 },
      { mode: 0, out: 100, in: 100, grid: 0 },
    ],
    [
      { mode: 'hold', powerW: 1000, targetSoc: 80 },
      { mode: 2, out: 0, in: 100, grid: 0 },
    ],
    [
      { mode: 'charge', powerW: 1000, targetSoc: 80 },
      { mode: 3, out: -25, in: 25, grid: 1 },
    ],
    [
      { mode: 'discharge', powerW: 9000, targetSoc: 30 },
      { mode: 3, out: 100, in: -100, grid: 0 },
    ],
  ] as const)
    assert.deepEqual(storagePlan(command, 4000), plan, command.mode);
});

test('the revert timeout: the seconds left of the lease, 1..1800, never 0', () => {
  const now = Date.parse('2026-06-21T12:00:00Z');
  assert.equal(revertSeconds(now + 30 * 60_000, now), 1800);
  assert.equal(revertSeconds(now + 30 * 60_000 - 3, now), 1800, 'the lease less the milliseconds of the write');
  assert.equal(revertSeconds(now + 30 * 60_000 + 999, now), 1800, 'never above the lease');
  assert.equal(revertSeconds(now + 10 * 60_000 + 400, now), 600);
  assert.equal(revertSeconds(now + 200, now), 1, '0 would mean no end');
  assert.equal(revertSeconds(now - 5000, now), 1);
});

test('a forced command writes its rates and revert timeout, then StorCtl_Mod; Normal turns StorCtl_Mod off first', () => {
  const normal = model124();
  const charge = storageWords(normal, CHARGE, 1800);
  assert.deepEqual(storageWrites(normal, charge), [
    { offset: 10, values: [word(-5000), 5000] }, // OutWRte -50.00 %, InWRte 50.00 % (InOutWRte_SF -2)
    { offset: 13, values: [1800] }, // InOutWRte_RvrtTms
    { offset: 15, values: [1] }, // ChaGriSet: grid
    { offset: 3, values: [3] }, // StorCtl_Mod last: both limits on
  ]);
  const charging = written(normal, storageWrites(normal, charge));
  assert.equal(storageMismatch(charging, charge, 40281), null);

  const back = storageWords(charging, storagePlan({ mode: 'normal', powerW: 0, targetSoc: 100 }, 3000), 0);
  assert.deepEqual(storageWrites(charging, back), [
    { offset: 3, values: [0] }, // first: no limits
    { offset: 10, values: [FULL_RATE, FULL_RATE] },
    { offset: 13, values: [0] }, // no timeout
    { offset: 15, values: [0] },
  ]);
  assert.deepEqual(storageWrites(normal, back), [], 'Normal on a device at rest writes nothing');
});

test('a renewal writes the revert timeout (restarting the countdown) and only the points that changed', () => {
  const charging = written(model124(), storageWrites(model124(), storageWords(model124(), CHARGE, 1800)));
  assert.deepEqual(storageWrites(charging, storageWords(charging, CHARGE, 1800)), [{ offset: 13, values: [1800] }]);
  assert.deepEqual(
    storageWrites(charging, storageWords(charging, { ...CHARGE, out: -80, in: 80 }, 1800)),
    [
      { offset: 10, values: [word(-8000), 8000] },
      { offset: 13, values: [1800] },
    ],
    'a new power: the two rates and the timeout',
  );
  const hold = storageWords(charging, { mode: 2, out: 0, in: 100, grid: 0 }, 1200);
  assert.deepEqual(storageWrites(charging, hold), [
    { offset: 10, values: [0, FULL_RATE] },
    { offset: 13, values: [1200] },
    { offset: 15, values: [0] },
    { offset: 3, values: [2] },
  ]);
});

test('points the device does not implement are not written; a device without InOutWRte_RvrtTms gets no timeout', () => {
  const bare = model124({ 12: 0xffff, 13: 0xffff, 14: 0xffff, 15: 0xffff });
  assert.deepEqual(storageWrites(bare, storageWords(bare, CHARGE, 1800)), [
    { offset: 10, values: [word(-5000), 5000] },
    { offset: 3, values: [3] },
  ]);
  const timers = model124({ 12: 30, 14: 60 });
  assert.deepEqual(
    storageWrites(timers, storageWords(timers, CHARGE, 1800)),
    [
      { offset: 10, values: [word(-5000), 5000, 0, 1800, 0, 1] },
      { offset: 3, values: [3] },
    ],
    'the window and the ramp set to 0 (at once) join the rates and the timeout: one request from 10 to 15',
  );
});

test('the read-back: a point that does not hold what was written fails it; a timeout counting down in place holds', () => {
  const words = storageWords(model124(), CHARGE, 1800);
  const after = written(model124(), storageWrites(model124(), words));
  assert.equal(storageMismatch(written(after, [{ offset: 13, values: [1795] }]), words, 40281), null);
  assert.equal(
    storageMismatch(written(after, [{ offset: 13, values: [0] }]), words, 40281),
    'InOutWRte_RvrtTms (register 40294) reads 0 after writing 1800',
  );
  assert.equal(
    storageMismatch(written(after, [{ offset: 3, values: [0] }]), words, 40281),
    'StorCtl_Mod (register 40284) reads 0 after writing 3',
  );
});

test('what the device is doing, from StorCtl_Mod, the signs of the rates and ChaGriSet', () => {
  const mode = (points: Record<number, number>) => storageMode(model124(points));
  assert.equal(mode({}), 'normal');
  assert.equal(mode({ 3: 0, 10: word(-5000), 15: 1 }), 'normal', 'rates without StorCtl_Mod do nothing');
  assert.equal(mode({ 3: 3, 10: word(-5000), 11: 5000, 15: 1 }), 'charge');
  assert.equal(mode({ 3: 2, 10: word(-5000), 15: 0 }), 'hold', 'forced charging from PV only: never discharges');
  assert.equal(mode({ 3: 3, 10: 8000, 11: word(-8000) }), 'discharge');
  assert.equal(mode({ 3: 2, 10: 0 }), 'hold');
  assert.equal(mode({ 3: 1, 11: 5000 }), null, 'a charge limit: not a mode of ours');
  assert.equal(mode({ 3: 0xffff }), null, 'not implemented');
});

test('emulator: the rates limit, reverse and force the battery (W, + discharging)', () => {
  const c = new StorageControls(); // WChaMax 3000 W
  const set = (offset: number, value: number) => c.write([{ offset, value }], 0);
  assert.equal(c.batteryW(-800, 3000, 5000), 800, 'no limits: the battery covers the deficit');
  set(3, 2);
  set(10, 0);
  assert.equal(c.batteryW(-800, 3000, 5000), 0, 'discharge limit 0 %: held');
  assert.equal(c.batteryW(500, 3000, 5000), -500, 'PV surplus still charges');
  set(3, 3);
  set(10, word(-5000)); // OutWRte -50.00 %
  set(11, 5000);
  assert.equal(c.batteryW(-800, 3000, 5000), 0, 'forced charging without ChaGriSet: no PV surplus, nothing');
  assert.equal(c.batteryW(1000, 3000, 5000), -1000, 'from the PV surplus only');
  set(15, 1);
  assert.equal(c.batteryW(-800, 3000, 5000), -1500, 'with ChaGriSet = grid: 50 % of WChaMax');
  set(10, 8000);
  set(11, word(-8000));
  assert.equal(c.batteryW(-800, 3000, 5000), 2400, 'forced discharge at 80 % of WChaMax');
  assert.equal(c.batteryW(-800, 3000, 0), 0, 'not below the reserve');
});

test('emulator: the revert countdown starts with a command written under a timeout, and restarts with the next', () => {
  const c = new StorageControls();
  c.write([{ offset: 3, value: 3 }], 1000);
  assert.equal(c.revertAt, null, 'no timeout: the command holds');
  c.write([{ offset: 13, value: 1800 }], 5000);
  assert.equal(c.revertAt, 5000 + 1_800_000);
  assert.equal(c.revertInS(5000 + 600_500), 1200);
  c.write([{ offset: 13, value: 1800 }], 600_000);
  assert.equal(c.revertAt, 600_000 + 1_800_000, 'rewriting the timeout restarts it');
  c.write([{ offset: 15, value: 1 }], 700_000);
  assert.equal(c.revertAt, 600_000 + 1_800_000, 'ChaGriSet is no rate command');
  c.write([{ offset: 13, value: 0 }], 800_000);
  assert.equal(c.revertAt, null, 'a timeout of 0 stops it');
  c.write([{ offset: 13, value: 60 }], 0);
  c.revert();
  assert.deepEqual([c.mode, c.outRate, c.inRate, c.revertAt, c.rvrtTms], [0, FULL_RATE, FULL_RATE, null, 60]);
});
