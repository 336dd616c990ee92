// The battery planner commanding a Deye inverter (its emulator, over Modbus TCP) through a
// cheap night and a dear evening with a manual clock shared by the server and the emulator:
// the time-of-use program's registers show the commanded grid charging at night and none at
// the evening peak, and the emulator's battery follows. Prices and the PV forecast come from
// the simulator (one inverter, no battery).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { startModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { DeyeDevice } from '@heliograph/plugin-deye/emulator';
import { audit } from '../drivers/battery-control.js';
import { instanceWhen, valuesOf, valuesWhen, write } from '../drivers/driver-api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { EVENING_BEFORE, P, QUARTER } from './planner-setup.js';

const clock = new ManualClock(EVENING_BEFORE);

/** Moves the clock on and waits until the deye driver and the planner both ran after the move. */
async function step(server: TestServer, ms: number): Promise<Map<string, unknown>> {
  clock.advance(ms);
  const at = clock.now();
  for (const id of ['deye', 'planner'])
    await instanceWhen(
      server,
      id,
      (i) => Date.parse((i as unknown as { last_poll: string | null }).last_poll ?? '') >= at,
      `${id} ran at ${new Date(at).toISOString()}`,
    );
  return valuesOf(server);
}

/** The deye emulator on the shared clock, the simulator for prices and forecast, the planner. */
async function start(plannerConfig: Record<string, unknown> = {}) {
  const device = new DeyeDevice({ now: () => new Date(clock.now()), soc: 30, peakPvW: 300 });
  const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, device]]) });
  after(() => emulator.close());
  const server = await startTestServer({
    clock,
    bundled: ['simulator', 'deye', 'planner'],
    config: { site: { timeZone: 'Europe/Berlin', latitude: 52.5, longitude: 13.4 } },
    plugins: [
      {
        id: 'sim',
        plugin: 'simulator',
        devices: ['inverter_1'],
        config: { pollIntervalMs: 1000, backfill_days: 0, pvPeakW: 300 },
      },
      {
        id: 'deye',
        plugin: 'deye',
        devices: ['inverter_2', 'battery_1'],
        config: {
          connection: { type: 'tcp', host: emulator.host, port: emulator.port },
          pollIntervalMs: 1000,
          timeoutMs: 400,
          battery: { capacityKwh: 5.12, maxChargeW: 2500, maxDischargeW: 2500, minSoc: 20 },
        },
      },
      { id: 'planner', plugin: 'planner', devices: ['planner_1'], config: { checkIntervalMs: 150, ...plannerConfig } },
    ],
  });
  return { device, emulator, server };
}

describe('battery planner on a Deye inverter', () => {
  test('charges through the time-of-use program at night and spends the battery at the evening peak', async () => {
    const { device, server } = await start();
    try {
      await valuesWhen(server, (v) => typeof v.get(`${P}/planned_mode`) === 'string', 'a first plan for the deye');
      assert.equal((await write(server, `${P}/mode`, 'active')).status, 200);

      // Grid charging as the program has it: the grid-charge bit of its six slots.
      const gridCharge = () => device.readHoldingRegisters({ address: 274, count: 6 }).some((w) => (w & 1) === 1);
      let charged = false;
      let low = 100;
      let risen = 0;
      for (let t = 0; t < 9; t++) {
        const soc = (await step(server, 4 * QUARTER)).get('battery_1/state_of_charge') as number;
        charged ||= gridCharge();
        low = Math.min(low, soc);
        risen = Math.max(risen, soc - low);
      }
      assert.ok(charged, 'the time-of-use program enabled grid charging in the night');
      assert.ok(risen > 10, `the emulator's battery charged in the night by ${risen} points`);
      const entries = (await audit(server)).filter(
        (e) => e.via === 'planner' && e.topic === 'inverter_2/battery_control_mode',
      );
      assert.ok(
        entries.some((e) => e.new_value === 'Charge' && e.result === 'ok'),
        'Charge audited via planner',
      );

      for (let t = 0; t < 11; t++) await step(server, 4 * QUARTER);
      const before = (await valuesOf(server)).get('battery_1/state_of_charge') as number;
      for (let t = 0; t < 3; t++) {
        await step(server, 4 * QUARTER);
        assert.equal(gridCharge(), false, `no grid charging at the peak (${new Date(clock.now()).toISOString()})`);
      }
      const after_ = (await valuesOf(server)).get('battery_1/state_of_charge') as number;
      assert.ok(after_ < before - 5, `the battery is used in the evening: ${before} -> ${after_} %`);
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
