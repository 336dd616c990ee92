// Battery control on the sunspec driver in the real server against the SunSpec emulator:
// each mode written through the API becomes model 124's StorCtl_Mod, InWRte, OutWRte and
// ChaGriSet in the emulator, its battery follows and is held at the target, every write is
// audited, refused writes are reported, the limits (from model 802) are enforced, and a
// device without model 124 offers no battery control.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ModbusException,
  ModbusExceptionCode,
  startModbusEmulator,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { SunSpecDevice } from '@heliograph/plugin-sunspec/emulator';
import { eventually } from '../helpers/child-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { valuesOf, valuesWhen, write } from './driver-api.js';
import { assertLimitsEnforced, command, lastAudited } from './battery-control.js';
import { floatInverter, modelsOf } from './sunspec-layouts.js';

let clock = new Date(2026, 5, 21, 22, 0); // night: no PV
const MINUTE = 60_000;
const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

class TestSunSpec extends SunSpecDevice {
  refuse = false;
  override writeRegisters(request: { address: number; values: number[] }): void {
    if (this.refuse) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    super.writeRegisters(request);
  }
}

async function start(device: ModbusDevice) {
  const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, device]]) });
  after(() => emulator.close());
  return startTestServer({
    bundled: ['sunspec'],
    plugins: [
      {
        id: 'sunspec',
        plugin: 'sunspec',
        devices: ['inverter_1'],
        config: {
          connection: { type: 'tcp', host: emulator.host, port: emulator.port },
          pollIntervalMs: 500,
          timeoutMs: 300,
        },
      },
    ],
  });
}

/** Model 124's control points as the emulator holds them: StorCtl_Mod, OutWRte and InWRte in %, ChaGriSet. */
function controls(device: SunSpecDevice) {
  const data = modelsOf(device).get(124)!.data;
  const pct = (word: number) => signed(word) / 100; // InOutWRte_SF -2
  return { mode: data[3], out: pct(data[10]!), in: pct(data[11]!), grid: data[15] };
}

/** Moves the emulator's clock on, then waits until the server has read the SOC it holds now. */
async function advance(server: TestServer, device: SunSpecDevice, minutes: number): Promise<number> {
  clock = new Date(clock.getTime() + minutes * MINUTE);
  device.readHoldingRegisters({ address: 40000, count: 2 }); // brings the battery up to the new time
  const soc = Math.round(device.soc * 10) / 10;
  await valuesWhen(server, (v) => v.get('inverter_1/battery_state_of_charge') === soc, `the server to read SOC ${soc}`);
  return soc;
}

test('sunspec: battery control through model 124; the battery follows and is held at the target', async () => {
  const device = new TestSunSpec({ now: () => clock, soc: 50 });
  const server = await start(device);
  const info = await valuesWhen(server, (v) => v.get('inverter_1/battery_capacity') === 10.24, 'limits from model 802');
  assert.equal(info.get('inverter_1/battery_max_charge_power'), 5000);
  assert.equal(info.get('inverter_1/battery_min_soc'), 10, "model 124's MinRsvPct");

  // Charge at 1500 W of WChaMax 3000 W: 50 %, forced through a negative OutWRte, from the grid.
  await command(server, 'inverter_1', { mode: 'charge', powerW: 1500, targetSoc: 53 });
  assert.deepEqual(controls(device), { mode: 3, out: -50, in: 50, grid: 1 });
  assert.equal((await lastAudited(server, 'inverter_1/battery_control_mode')).result, 'ok');
  const socs: number[] = [];
  // Until the server read the target; the driver's hold follows in the same poll.
  while (socs.length < 40 && !(socs.at(-1)! >= 53)) socs.push(await advance(server, device, 2));
  assert.ok(socs[0]! > 50, `SOC rises: ${socs.join(' ')}`);
  await eventually(
    () => Promise.resolve(controls(device).mode === 2 ? true : undefined),
    'the driver to hold at the target',
  );
  assert.deepEqual(controls(device), { mode: 2, out: 0, in: 100, grid: 0 });
  const held = Math.round(device.soc);
  assert.equal(held, 53);
  assert.equal(Math.round(await advance(server, device, 60)), held, 'held: no discharge at night');

  // Discharge at 2400 W down to 51 %.
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(controls(device), { mode: 3, out: 80, in: -80, grid: 0 });
  for (let i = 0, soc = 53; i < 60 && soc > 51; i++) soc = await advance(server, device, 1);
  await eventually(() => Promise.resolve(controls(device).mode === 2 ? true : undefined), 'the driver to hold at 51 %');
  assert.equal(Math.round(device.soc), 51);

  // Hold, then normal: StorCtl_Mod 2 with OutWRte 0, then everything off.
  await command(server, 'inverter_1', { mode: 'hold', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(controls(device), { mode: 2, out: 0, in: 100, grid: 0 });
  await command(server, 'inverter_1', { mode: 'normal', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(controls(device), { mode: 0, out: 100, in: 100, grid: 0 });
  assert.ok((await advance(server, device, 60)) < 50, 'self-consumption discharges to the night load');

  await assertLimitsEnforced(server, 'inverter_1', { maxChargeW: 5000, minSoc: 10 });
  device.refuse = true;
  const refused = await write(server, 'inverter_1/battery_control_mode', 'Hold');
  assert.equal(refused.status, 422);
  assert.match(refused.body, /the device refused/);
  const audited = await lastAudited(server, 'inverter_1/battery_control_mode');
  assert.deepEqual([audited.result, audited.new_value], ['error', 'Hold']);
});

test('sunspec: a device without model 124 offers no battery control', async () => {
  const server = await start(floatInverter());
  const values = await valuesWhen(server, (v) => typeof v.get('inverter_1/pv_power') === 'number', 'a first poll');
  assert.equal(values.has('inverter_1/battery_control_mode'), false);
  assert.equal((await valuesOf(server)).has('inverter_1/battery_capacity'), false);
});
