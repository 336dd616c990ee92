// The deye driver in the real server against its emulator, over every connection type it
// supports: values scaled and signed as the vocabulary says, identity, writes accepted and
// refused, a corrupt frame skipped, and a device that stops answering and comes back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusException, ModbusExceptionCode, startModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { DEFAULT_LOGGER_SERIAL, DeyeDevice } from '@heliograph/plugin-deye/emulator';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { SOCAT_SKIP } from '../helpers/pty-bridge.js';
import {
  assertSilentUnit,
  connectionTo,
  instanceWhen,
  runningAgain,
  serveDriver,
  valuesWhen,
  write,
} from './driver-api.js';

let clock = new Date(2026, 5, 21, 12, 0); // the emulator's clock: noon, the sun at its peak
const toSigned = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/** A Deye that can be told to refuse writes (a Modbus exception) or to ignore them. */
class TestDeye extends DeyeDevice {
  refuse = false;
  ignore = false;
  override writeRegisters(request: { address: number; values: number[] }): void {
    if (this.refuse) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    if (!this.ignore) super.writeRegisters(request);
  }
}

type Transport = 'tcp' | 'rtu-over-tcp' | 'solarman' | 'serial';

async function start(transport: Transport) {
  const device = new TestDeye({ now: () => clock, serial: '2306011234' });
  const emulator = await startModbusEmulator({
    transport: transport === 'serial' ? 'rtu-over-tcp' : transport,
    units: new Map([[3, device]]),
    loggerSerial: DEFAULT_LOGGER_SERIAL,
  });
  const server = await serveDriver(emulator, {
    plugin: 'deye',
    devices: [{ id: 'inverter_1', config: { unitId: 3 } }, 'battery_1'],
    connection: await connectionTo(
      emulator,
      transport,
      transport === 'solarman' ? { loggerSerial: DEFAULT_LOGGER_SERIAL } : {},
    ),
    config: { pollIntervalMs: 500, timeoutMs: 400 },
  });
  return { device, emulator, server };
}

/** The register words the emulator holds now, by address. */
function registers(device: DeyeDevice): (address: number) => number {
  const words = device.readHoldingRegisters({ address: 0, count: 300 });
  return (address) => words[address]!;
}

const live = (server: TestServer) =>
  valuesWhen(server, (v) => typeof v.get('inverter_1/pv_power') === 'number', 'inverter_1/pv_power to be published');

for (const transport of ['tcp', 'rtu-over-tcp', 'solarman', 'serial'] as const) {
  const skip = transport === 'serial' && SOCAT_SKIP;
  test(`deye over ${transport}: readings, signs, identity, writes, corrupt frames, silence`, { skip }, async () => {
    clock = new Date(2026, 5, 21, 12, 0);
    const { device, emulator, server } = await start(transport);
    const values = await live(server);
    const r = registers(device);

    // Scaling, and the sum of the strings.
    assert.equal(values.get('inverter_1/pv_power_1'), r(186));
    assert.equal(values.get('inverter_1/pv_power'), r(186) + r(187));
    assert.equal(values.get('inverter_1/pv_voltage_1'), r(109) / 10);
    assert.equal(values.get('inverter_1/grid_voltage'), r(150) / 10);
    assert.equal(values.get('inverter_1/grid_frequency'), r(79) / 100);
    assert.equal(values.get('inverter_1/temperature'), Math.round(r(91) - 1000) / 10);
    assert.equal(values.get('inverter_1/device_mode'), 'Normal');
    assert.equal(values.get('battery_1/voltage'), r(183) / 100);
    assert.equal(values.get('battery_1/state_of_charge'), r(184));
    assert.equal(values.get('inverter_1/energy_priority'), 'Load first');
    assert.equal(values.get('inverter_1/max_sell_power'), r(245));

    // Signs: at noon the surplus charges the battery (the device says − for charging) and is exported.
    assert.ok(toSigned(r(190)) < 0, 'the emulator charges its battery at noon');
    assert.equal(values.get('battery_1/power'), -toSigned(r(190)));
    assert.ok((values.get('battery_1/power') as number) > 0, 'battery power + charging');
    assert.ok((values.get('battery_1/current') as number) > 0, 'battery current + charging');
    assert.equal(values.get('inverter_1/battery_power'), values.get('battery_1/power'));
    assert.ok((values.get('inverter_1/grid_power') as number) < 0, 'grid power − export');

    // Identity from registers 0 and 3..7.
    assert.equal(values.get('inverter_1/serial_number'), '2306011234');
    assert.equal(values.get('inverter_1/model'), 'Single-phase hybrid');
    assert.equal(values.get('inverter_1/manufacturer'), 'Deye');

    // Writes: an option by its label, a range by its number; both land in the device.
    assert.equal((await write(server, 'inverter_1/work_mode', 'Zero export to load')).status, 200);
    assert.equal(device.settings.workMode, 1);
    assert.equal((await write(server, 'inverter_1/max_charge_current', '40')).status, 200);
    assert.equal(device.settings.maxChargeA, 40);
    assert.equal((await write(server, 'inverter_1/energy_priority', 'Battery first')).status, 200);
    assert.equal(device.settings.energyPriority, 0);
    // With no battery discharge allowed, the night's load comes from the grid: grid + import.
    assert.equal((await write(server, 'inverter_1/max_discharge_current', '0')).status, 200);
    clock = new Date(2026, 5, 22, 2, 0);
    await valuesWhen(server, (v) => (v.get('inverter_1/grid_power') as number) > 0, 'grid power + import at night');
    clock = new Date(2026, 5, 22, 12, 0);

    // Refused: a Modbus exception, and a write the device ignores (caught by reading back).
    device.refuse = true;
    const refused = await write(server, 'inverter_1/max_sell_power', '3000');
    assert.equal(refused.status, 422);
    assert.match(refused.body, /the device refused: .*illegal data value/i);
    device.refuse = false;
    device.ignore = true;
    const ignored = await write(server, 'inverter_1/max_sell_power', '3000');
    assert.equal(ignored.status, 422);
    assert.match(ignored.body, /the device refused: register 245 holds 5000 after writing 3000/);
    device.ignore = false;

    // A corrupt frame is skipped, never read as values; the next poll reads right again.
    emulator.corruptNext(1);
    await emulator.nextRequest();
    const soc = registers(device)(184);
    await valuesWhen(server, (v) => v.get('battery_1/state_of_charge') === soc, 'the next good poll');

    // Silence: the values read null within a poll, the status names the device; then it recovers.
    emulator.silence(true);
    assert.equal((await assertSilentUnit(server, 'deye', 3)).get('inverter_1/serial_number'), '2306011234');
    emulator.silence(false);
    await live(server);
    await runningAgain(server, 'deye');
  });
}

test('deye refuses a config it cannot work with, saying what to change', async () => {
  const connection = { type: 'tcp', host: '127.0.0.1', port: 1 };
  const server = await startTestServer({
    bundled: ['deye'],
    plugins: [{ id: 'two', plugin: 'deye', devices: ['inverter_1', 'inverter_2'], config: { connection } }],
  });
  const two = await instanceWhen(server, 'two', (i) => i.state === 'failed', 'two inverters to fail');
  assert.match(two.last_error ?? '', /reads one inverter and at most its battery/);
  await assert.rejects(
    startTestServer({
      bundled: ['deye'],
      plugins: [{ id: 'typo', plugin: 'deye', devices: ['inverter_1'], config: { connection, pollInterval: 5000 } }],
    }),
    /Unrecognized key: "pollInterval"/,
  );
});
