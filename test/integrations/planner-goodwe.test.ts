// The battery planner commanding a GoodWe ET (its emulator, over Modbus RTU over TCP) through a
// cheap night and a dear evening with a manual clock shared by the server and the emulator:
// the eco mode group the emulator runs by its clock grid charges at night (work_mode 47000 = 3
// Eco, eco_mode_1 at 47547 in force at a negative power: marcelblijleven/goodwe goodwe/et.py
// and goodwe/sensor.py `Schedule`), each time a window of at most 30 minutes that the planner's
// renewals move on, and not at the evening peak; the emulator's battery follows, and the stop
// leaves the device in General. Prices and the PV forecast come from the simulator (one
// inverter, no battery).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { GoodweDevice } from '@heliograph/plugin-goodwe/emulator';
import { EVENING_BEFORE, plannerCommandsDevice, startWithModbusDevice } from './planner-setup.js';

const clock = new ManualClock(EVENING_BEFORE);
const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);
const minutes = (word: number) => (word >> 8) * 60 + (word & 0xff);

describe('battery planner on a GoodWe ET', () => {
  test('charges through eco group 1 at night and spends the battery at the evening peak', async () => {
    const device = new GoodweDevice({ now: () => new Date(clock.now()), soc: 30, peakPvW: 300 });
    const { server } = await startWithModbusDevice(clock, {
      id: 'goodwe',
      plugin: 'goodwe',
      devices: ['inverter_2', 'battery_1'],
      config: { timeoutMs: 400, battery: { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 10 } },
      transport: 'rtu-over-tcp',
      units: new Map([[0xf7, device]]),
    });
    try {
      // Grid charging as the registers have it: Eco, group 1 on and in force by the device's clock, a charging power.
      const windows: number[] = [];
      const workMode = () => device.readHoldingRegisters({ address: 47000, count: 1 })[0];
      await plannerCommandsDevice(server, clock, {
        instance: 'goodwe',
        charging: () => {
          const g = device.readHoldingRegisters({ address: 47547, count: 6 });
          const on = workMode() === 3 && g[2]! >> 8 === 0xff && signed(g[3]!) < -1 && device.programNow() !== null;
          if (on) windows.push((minutes(g[1]!) - minutes(g[0]!) + 1440) % 1440);
          return on;
        },
        forced: () => workMode() === 3,
      });
      assert.ok(
        windows.every((w) => w > 0 && w <= 30),
        `each window at most 30 min: ${windows.join(' ')}`,
      );
    } finally {
      await server.close();
    }
    assert.equal(
      device.readHoldingRegisters({ address: 47000, count: 1 })[0],
      0,
      'the stop leaves the work mode General',
    );
    assert.equal(device.programNow(), null, 'and no group in force');
  });
});
