// The battery planner commanding a Growatt SPH (its emulator, over Modbus TCP) through a cheap
// night and a dear evening with a manual clock shared by the server and the emulator: slot 1
// of battery first with AC charge, which the emulator runs by its clock, grid charges at night
// and not at the evening peak, and the emulator's battery follows. Each forced command is a
// lease of 30 min on the unit, renewed by the planner. Prices and the PV forecast come from the
// simulator (one inverter, no battery).
import { after, describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { startModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { GrowattDevice } from '@heliograph/plugin-growatt/emulator';
import { valuesWhen } from '../drivers/driver-api.js';
import { EVENING_BEFORE, P, plannerCommandsDevice, startWithDevice } from './planner-setup.js';

const clock = new ManualClock(EVENING_BEFORE);

/** The growatt emulator on the shared clock, the simulator for prices and forecast, the planner. */
async function start(plannerConfig: Record<string, unknown> = {}) {
  const device = new GrowattDevice({ now: () => new Date(clock.now()), soc: 30, peakPvW: 300 });
  const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, device]]) });
  after(() => emulator.close());
  const server = await startWithDevice(
    clock,
    {
      id: 'growatt',
      plugin: 'growatt',
      devices: ['inverter_2', 'battery_1'],
      config: {
        connection: { type: 'tcp', host: emulator.host, port: emulator.port },
        pollIntervalMs: 500, // the driver schema's least: each step of the clock waits for a poll
        timeoutMs: 400,
        battery: { capacityKwh: 6.5, maxChargeW: 3000, maxDischargeW: 3000, minSoc: 20 },
      },
    },
    plannerConfig,
  );
  return { device, emulator, server };
}

describe('battery planner on a Growatt SPH', () => {
  test('charges through a battery-first slot at night and spends the battery at the evening peak', async () => {
    const { device, server } = await start();
    try {
      // Grid charging as the emulator's slots have it now: battery first in force with AC charge on.
      await plannerCommandsDevice(server, clock, {
        instance: 'growatt',
        charging: () => device.settings.priority === 1 && device.settings.gridCharge === 1,
      });
    } finally {
      await server.close();
    }
  });

  test('a device that stops answering: the planner stops planning and says why', async () => {
    const { emulator, server } = await start({ mode: 'active' });
    try {
      await valuesWhen(server, (v) => String(v.get(`${P}/status`)).startsWith('active:'), 'the planner acting');
      await emulator.close();
      await valuesWhen(
        server,
        (v) => v.get(`${P}/status`) === 'normal: inverter_2 is unavailable' && v.get(`${P}/planned_mode`) === null,
        'the unavailable device in the status',
      );
    } finally {
      await server.close();
    }
  });
});
