// Dynamic ESS slot 0 as the lease of a battery command: the slot the driver writes for each
// mode (victronenergy/dbus_modbustcp attributes.csv 5424..5430), what a renewal changes, what
// the driver reads back as the GX's mode, the GX's clock (830); and the emulator's Dynamic ESS
// (victronenergy/dbus-systemcalc-py delegates/dynamicess.py): its window, rate and restrictions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BatteryCommand } from '@heliograph/plugins-sdk';
import { DynamicEss } from '../src/emulator/dess.js';
import { clockOf, slotFor, slotMode, slotOf, slotWords, slotWrite, type Slot } from '../src/dess-slot.js';

const NOW = 1_797_890_000; // s, the GX's time
const EMPTY: Slot = { feedIn: 0, durationS: 0, restrictions: 0, soc: 0, start: 0, strategy: 0 };
const forced = (command: BatteryCommand, current: Slot = EMPTY, soc: number | null = 50, nowS = NOW) =>
  slotFor({ command, soc, capacityKwh: 10, deviceNowS: nowS, deviceUntilS: nowS + 1800, current });

test('slot words: Start is an int32 high word first; the clock a uint64 of seconds', () => {
  const slot: Slot = { feedIn: 1, durationS: 1800, restrictions: 2, soc: 65, start: NOW, strategy: 0 };
  const words = slotWords(slot);
  assert.deepEqual(words, [1, 1800, 2, 65, NOW >>> 16, NOW & 0xffff, 0]);
  assert.deepEqual(slotOf(words), slot);
  assert.equal(clockOf([0, 0, NOW >>> 16, NOW & 0xffff]), NOW * 1000);
});

test('each mode as slot 0: a Target SOC window to the lease end aiming where the power gets; Normal ends it', () => {
  assert.deepEqual(forced({ mode: 'charge', powerW: 3000, targetSoc: 80 }), {
    feedIn: 0,
    restrictions: 0,
    soc: 65, // 50 % + 3000 W x 0.5 h of 10 kWh
    start: NOW,
    durationS: 1800,
    strategy: 0,
  });
  assert.equal(forced({ mode: 'charge', powerW: 5000, targetSoc: 60 }).soc, 60, 'never past the target');
  assert.deepEqual(forced({ mode: 'discharge', powerW: 2000, targetSoc: 30 }), {
    feedIn: 1,
    restrictions: 0,
    soc: 40,
    start: NOW,
    durationS: 1800,
    strategy: 0,
  });
  assert.equal(forced({ mode: 'discharge', powerW: 5000, targetSoc: 45 }).soc, 45);
  assert.deepEqual(forced({ mode: 'hold', powerW: 0, targetSoc: 50 }), {
    feedIn: 0,
    restrictions: 2, // grid to battery restricted: PV only
    soc: 100,
    start: NOW,
    durationS: 1800,
    strategy: 0,
  });
  const running = forced({ mode: 'hold', powerW: 0, targetSoc: 50 });
  assert.deepEqual(forced({ mode: 'normal', powerW: 0, targetSoc: 50 }, running), { ...running, start: 0 });
});

test('a renewal keeps the window start and moves its end: only the Duration is written', () => {
  const hold = { mode: 'hold', powerW: 0, targetSoc: 50 } as const;
  const first = forced(hold);
  const renewed = forced(hold, first, 50, NOW + 900);
  assert.deepEqual(renewed, { ...first, durationS: 2700 });
  assert.deepEqual(slotWrite(first, renewed), { address: 5425, values: [2700] });
  assert.equal(slotWrite(renewed, renewed), null, 'nothing to write');
  // A window that ran out starts anew; one longer than the uint16 Duration holds starts anew too.
  assert.equal(forced(hold, first, 50, NOW + 1801).start, NOW + 1801);
  const old = { ...first, start: NOW - 65_000, durationS: 65_000 };
  assert.equal(forced(hold, old).start, NOW);
  // From Normal: one request from the first word that differs (AllowGridFeedIn for a Discharge) to Start.
  const discharge = forced({ mode: 'discharge', powerW: 2000, targetSoc: 30 });
  assert.deepEqual(slotWrite(EMPTY, discharge), { address: 5424, values: slotWords(discharge).slice(0, 6) });
});

test("the GX's mode from slot 0: normal outside the window or without Node-RED mode", () => {
  const charge = forced({ mode: 'charge', powerW: 3000, targetSoc: 80 });
  const mode = (slot: Slot, more: { dessMode?: number; nowS?: number; soc?: number | null } = {}) =>
    slotMode({
      dessMode: more.dessMode ?? 4,
      slot,
      nowS: more.nowS ?? NOW + 60,
      soc: 'soc' in more ? (more.soc ?? null) : 50,
    });
  assert.equal(mode(charge), 'charge');
  assert.equal(mode(charge, { nowS: NOW + 1801 }), 'normal', 'after the window');
  assert.equal(mode(charge, { dessMode: 1 }), 'normal', "Auto: VRM's schedule, not Heliograph's");
  assert.equal(mode({ ...charge, strategy: 1 }), 'normal', 'Self-consumption');
  assert.equal(mode(forced({ mode: 'discharge', powerW: 2000, targetSoc: 30 })), 'discharge');
  assert.equal(mode(forced({ mode: 'hold', powerW: 0, targetSoc: 30 })), 'hold');
  assert.equal(mode(charge, { soc: null }), null, 'a Target SOC without the SOC');
});

test("the emulator's Dynamic ESS: the window by its clock, the delegate's rate, restrictions", () => {
  const dess = new DynamicEss();
  Object.assign(dess, { mode: 4, capacityTenths: 100, start: NOW, durationS: 1800, soc: 65, strategy: 0 });
  const at = (s: number, soc = 50, surplusW = -400) => dess.flow({ nowMs: s * 1000, soc, surplusW, maxW: 5000 });
  assert.deepEqual(at(NOW), { batteryW: 3000, endsAt: (NOW + 1800) * 1000 }, '15 % of 10 kWh in 1800 s');
  assert.equal(at(NOW + 900, 57.5).batteryW, 3000, 'the rate holds as the battery follows');
  assert.deepEqual(at(NOW + 1801), { batteryW: null, endsAt: null }, 'no matching schedule: the regular ESS');
  assert.equal(dess.words().get(5404), 3, 'error 3: No matching schedule');
  assert.equal(at(NOW, 65).batteryW, 0, 'at the aim: idle, no discharge at night');
  dess.restrictions = 2;
  assert.equal(at(NOW).batteryW, 0, 'grid to battery restricted: PV only');
  assert.equal(at(NOW, 50, 800).batteryW, 800);
  Object.assign(dess, { restrictions: 0, soc: 40, feedIn: 1 });
  assert.equal(at(NOW).batteryW, -2000, 'discharging to the grid');
  dess.feedIn = 0;
  assert.equal(at(NOW).batteryW, null, 'without feed-in: the regular ESS covers the house');
  dess.capacityTenths = 0;
  assert.equal(at(NOW).batteryW, null, 'no capacity: Dynamic ESS does nothing (error 5)');
  assert.equal(dess.words().get(5404), 5);
});
