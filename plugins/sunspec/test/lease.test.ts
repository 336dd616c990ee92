// The lease of a forced battery command on a SunSpec device: the driver (in the SDK's test
// host, on a clock it shares with the emulator) writes model 124's revert timeout with every
// forced command and only what changed on a renewal, ends a command the device kept past its
// lease, a forced command it finds at its start and the one in force at its stop; a device
// without InOutWRte_RvrtTms says that it cannot bound a command.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startModbusEmulator, type ModbusDevice } from '@heliograph/plugins-sdk/emulator';
import { startTestHost, stopTestHosts } from '@heliograph/plugins-sdk/testing';
import sunspec from '../src/index.js';
import { SunSpecDevice } from '../src/emulator/main.js';

const MINUTE = 60_000;
const START = new Date(2026, 5, 21, 22, 0).getTime(); // night: no PV
let time = START;

/** The emulated device, with every write request it took (data offset in model 124, words). */
class LoggedSunSpec extends SunSpecDevice {
  writes: Array<{ offset: number; values: number[] }> = [];
  /** Points shown as "not implemented", by data offset in model 124. */
  blank = new Set<number>();

  constructor() {
    super({ now: () => new Date(time), soc: 50 });
  }

  override readHoldingRegisters(request: { address: number; count: number }): number[] {
    const data = this.storageAddress + 2;
    return super
      .readHoldingRegisters(request)
      .map((word, i) => (this.blank.has(request.address + i - data) ? 0xffff : word));
  }

  override writeRegisters(request: { address: number; values: number[] }): void {
    this.writes.push({ offset: request.address - this.storageAddress - 2, values: request.values });
    super.writeRegisters(request);
  }

  /** Model 124's control points from its registers: StorCtl_Mod, OutWRte and InWRte (words), the timeout, ChaGriSet. */
  controls() {
    const d = this.readHoldingRegisters({ address: this.storageAddress + 2, count: 16 });
    return { mode: d[3], out: d[10], in: d[11], revertS: d[13], grid: d[15] };
  }
}

const NORMAL = { mode: 0, out: 10000, in: 10000, revertS: 0, grid: 0 };

async function start(device: ModbusDevice) {
  time = START;
  const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, device]]) });
  const host = await startTestHost({
    plugin: sunspec,
    devices: ['inverter_1', 'battery_1'],
    now: time,
    config: { connection: { type: 'tcp', host: emulator.host, port: emulator.port }, timeoutMs: 400 },
  });
  after(async () => {
    await stopTestHosts();
    await emulator.close();
  });
  const advance = (ms: number) => {
    time += ms;
    host.setTime(time);
  };
  return { host, advance };
}

test('Charge writes a revert timeout of 30 min; a renewal writes only it and restarts the countdown', async () => {
  const device = new LoggedSunSpec();
  const { host, advance } = await start(device);
  await host.runJob('poll');
  assert.equal(host.value('inverter_1/battery_control_lease'), 1800);
  assert.deepEqual(device.writes, [], 'a device at rest: nothing written at the start');

  await host.write('inverter_1/battery_control_power', 1500);
  await host.write('inverter_1/battery_control_mode', 'Charge');
  assert.deepEqual(device.controls(), { mode: 3, out: -5000 & 0xffff, in: 5000, revertS: 1800, grid: 1 });
  assert.deepEqual(device.writes, [
    { offset: 10, values: [-5000 & 0xffff, 5000] },
    { offset: 13, values: [1800] },
    { offset: 15, values: [1] },
    { offset: 3, values: [3] },
  ]);

  device.writes = [];
  advance(15 * MINUTE);
  await host.runJob('poll');
  await host.write('inverter_1/battery_control_mode', 'Charge'); // the planner's renewal
  assert.deepEqual(device.writes, [{ offset: 13, values: [1800] }], 'only the revert timeout');
  advance(20 * MINUTE); // 35 min after the Charge, 20 after the renewal
  assert.equal(device.controls().mode, 3, 'the renewed countdown runs');
  await host.runJob('poll');
  assert.equal(host.value('inverter_1/battery_control_mode'), 'Charge');

  device.writes = [];
  await host.write('inverter_1/battery_control_power', 2400);
  assert.deepEqual(device.writes, [
    { offset: 10, values: [-8000 & 0xffff, 8000] },
    { offset: 13, values: [1800] },
  ]);

  advance(31 * MINUTE); // nobody renewed
  assert.deepEqual(device.controls(), { ...NORMAL, revertS: 1800, grid: 1 }, 'the device went back by itself');
  device.writes = [];
  await host.runJob('poll');
  assert.equal(host.value('inverter_1/battery_control_mode'), 'Normal', 'the lapsed lease shows Normal');
  assert.deepEqual(device.writes, [], 'nothing to end');
});

test('a command the device keeps past its lease (its timeout restarted by someone else) is ended at the next poll', async () => {
  const device = new LoggedSunSpec();
  const { host, advance } = await start(device);
  await host.runJob('poll');
  await host.write('inverter_1/battery_control_mode', 'Hold');
  assert.deepEqual(device.controls(), { mode: 2, out: 0, in: 10000, revertS: 1800, grid: 0 });
  advance(25 * MINUTE);
  device.writeRegisters({ address: device.storageAddress + 15, values: [1800] });
  advance(6 * MINUTE);
  assert.equal(device.controls().mode, 2, 'still held on the device');
  await host.runJob('poll');
  assert.deepEqual(device.controls(), NORMAL);
  assert.equal(host.value('inverter_1/battery_control_mode'), 'Normal');
  assert.ok(host.logs.some((line) => /hold still in force after its lease ended/.test(line)));
});

test('start: a forced command found on the device is ended; stop: the one in force is ended', async () => {
  const device = new LoggedSunSpec();
  // Left forced by an earlier run without a timeout: grid charging, StorCtl_Mod 3, OutWRte -100 %.
  Object.assign(device.storage, { mode: 3, outRate: -10000 & 0xffff, inRate: 10000, gridCharge: 1, rvrtTms: 0 });
  const { host } = await start(device);
  await host.runJob('poll');
  assert.deepEqual(device.controls(), NORMAL);
  assert.ok(host.logs.some((line) => /charge in force on the device at the start: set to Normal/.test(line)));

  await host.write('inverter_1/battery_control_target_soc', 20);
  await host.write('inverter_1/battery_control_mode', 'Discharge');
  assert.deepEqual(device.controls(), { mode: 3, out: 10000, in: -10000 & 0xffff, revertS: 1800, grid: 0 });
  await host.stop();
  assert.deepEqual(device.controls(), NORMAL, 'Normal written before the connection closed');
});

test('a device without InOutWRte_RvrtTms: battery control with a lease of 0, nothing written there', async () => {
  const device = new LoggedSunSpec();
  device.blank.add(13);
  const { host } = await start(device);
  await host.runJob('poll');
  assert.equal(host.value('inverter_1/battery_control_lease'), 0);
  assert.ok(host.logs.some((line) => /does not implement InOutWRte_RvrtTms/.test(line)));
  await host.write('inverter_1/battery_control_mode', 'Charge');
  assert.equal(device.controls().mode, 3);
  assert.ok(
    device.writes.every((w) => w.offset > 13 || w.offset + w.values.length <= 13),
    JSON.stringify(device.writes),
  );
});
