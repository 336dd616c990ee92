import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeviceClockSteps } from '../src/emulator/index.js';

const MINUTE = 60_000;
const T0 = new Date(2026, 5, 21, 22, 0).getTime();

/** Steps on a clock the test sets, the device's clock `offsetMs` ahead; `run` returns the pieces it stepped. */
function rig(offsetMs: number) {
  let now = T0;
  const steps = new DeviceClockSteps(
    () => new Date(now),
    () => offsetMs,
  );
  return {
    steps,
    set: (t: number) => (now = t),
    run() {
      const pieces: Array<{ from: number; ms: number }> = [];
      steps.run((from, hours) => pieces.push({ from: from.getTime(), ms: Math.round(hours * 60 * MINUTE) }));
      return pieces;
    },
  };
}

test("pieces end on the device's minutes, not the true clock's, and add up to the time passed", () => {
  const device = rig(20_000); // the device's clock 20 s ahead: its minutes turn at :40 of the true clock
  device.set(T0 + 3 * MINUTE);
  const pieces = device.run();
  assert.deepEqual(
    pieces.map((p) => p.ms / 1000),
    [40, 60, 60, 20],
  );
  for (const { from } of pieces.slice(1)) assert.equal((from + 20_000) % MINUTE, 0, 'starts on a device minute');
  assert.deepEqual(device.run(), [], 'nothing twice');
});

test('a clock behind the true one steps the same way', () => {
  const device = rig(-(197 * MINUTE + 20_000));
  device.set(T0 + 2 * MINUTE);
  assert.deepEqual(
    device.run().map((p) => p.ms / 1000),
    [20, 60, 40],
  );
});

test('at most the last hour is caught up; a clock set back goes on from there', () => {
  const device = rig(0);
  device.set(T0 + 5 * 60 * MINUTE);
  const pieces = device.run();
  assert.equal(pieces.length, 60);
  assert.equal(pieces[0]!.from, T0 + 4 * 60 * MINUTE, 'from an hour before now');

  device.set(T0);
  assert.deepEqual(device.run(), [], 'set back: nothing to integrate');
  device.set(T0 + MINUTE);
  assert.deepEqual(device.run(), [{ from: T0, ms: MINUTE }], 'then on from the time it was set back to');
});

test("today's counters are the steps' own: reset at the midnight the steps reach", () => {
  const device = rig(0);
  const pv = () => device.steps.run((_, hours) => device.steps.day.add('pv', 1000, hours));
  device.set(T0 + 90 * MINUTE); // 23:30: the last hour caught up, 22:30 to 23:30
  pv();
  assert.equal(Math.round(device.steps.day.kWh('pv') * 1000) / 1000, 1, 'an hour at 1 kW');
  device.set(T0 + 150 * MINUTE); // 00:30 the next day
  pv();
  assert.equal(Math.round(device.steps.day.kWh('pv') * 10) / 10, 0.5, 'since midnight only');
});
