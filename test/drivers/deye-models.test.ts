// The deye driver against devices whose registers are laid out from the public definitions,
// not from our emulator: kellerza/sunsynk (`identity.py` device types, `single_phase.py`,
// `three_phase_common.py`, `three_phase_lv.py`, `three_phase_hv.py`) and ha-solarman
// (`deye_hybrid.yaml`). Each device is a plain table of raw register words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusException, ModbusExceptionCode, startModbusEmulator, toWord } from '@heliograph/plugins-sdk/emulator';
import type { TestServer } from '../helpers/server.js';
import {
  assertShown,
  connectionTo,
  instanceWhen,
  malformedWhileCorrupt,
  modbusUnitServer,
  serveDriver,
  valuesWhen,
  write,
} from './driver-api.js';

/** Holding registers as a table; writes land in it; reads of anything absent read 0. */
class RegisterTable {
  readonly words = new Map<number, number>();
  readonly writes: Array<{ address: number; values: number[] }> = [];
  constructor(entries: Array<[number, number]>) {
    for (const [address, word] of entries) this.words.set(address, word);
  }
  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    if (address + count > 1000) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    return Array.from({ length: count }, (_, i) => this.words.get(address + i) ?? 0);
  }
  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    this.writes.push({ address, values });
    values.forEach((value, i) => this.words.set(address + i, value));
  }
}

/** Rated power as registers (u32, 0.1 W, low word first). */
const rated = (address: number, watts: number): Array<[number, number]> => [
  [address, (watts * 10) & 0xffff],
  [address + 1, Math.floor((watts * 10) / 0x10000)],
];

const serve = modbusUnitServer({
  plugin: 'deye',
  transport: 'tcp',
  devices: ['inverter_1', 'battery_1'],
  config: { pollIntervalMs: 500, timeoutMs: 400 },
});

const live = (server: TestServer) =>
  valuesWhen(server, (v) => typeof v.get('inverter_1/load_power') === 'number', 'inverter_1/load_power published');

async function writableMax(server: TestServer, topic: string): Promise<number | undefined> {
  const rows = (await (await server.api('/api/v1/metrics')).json()) as Array<{
    topic: string;
    writable?: { max?: number };
  }>;
  return rows.find((r) => r.topic === topic)?.writable?.max;
}

test('single-phase (type 3): load 178 signed, grid from the CT (172), sell limit from rated power (16/17), state 5', async () => {
  const table = new RegisterTable([
    [0, 0x0003],
    ...rated(16, 3600),
    [59, 5],
    [169, toWord(-1200)], // the inverter's grid port
    [172, toWord(-1500)], // the external CT: what the house exports
    [178, toWord(-200)], // load power, signed
    [184, 55],
    [186, 900],
    [187, 800],
    [190, toWord(-400)], // + discharging on the device: charging here
    [245, 3000],
  ]);
  const server = await serve(table);
  const values = await live(server);
  assert.equal(values.get('inverter_1/grid_power'), -1500, 'grid power from the CT where one is fitted');
  assertShown(values, {
    'inverter_1/load_power': -200,
    'inverter_1/device_mode': 'Activating',
    'inverter_1/pv_power': 1700,
    'battery_1/power': 400,
    'inverter_1/model': 'Single-phase hybrid',
  });
  assert.equal(await writableMax(server, 'inverter_1/max_sell_power'), 3600);
  assert.equal((await write(server, 'inverter_1/max_sell_power', '5000')).status >= 400, true, 'above rated power');
  assert.equal((await write(server, 'inverter_1/max_sell_power', '2500')).status, 200);
  assert.deepEqual(table.writes.at(-1), { address: 245, values: [2500] });
});

test('single-phase with gridPowerFrom "inverter" reads the grid port (169)', async () => {
  const table = new RegisterTable([[0, 3], ...rated(16, 5000), [169, toWord(-1200)], [172, toWord(-1500)], [178, 300]]);
  const server = await serve(table, { gridPowerFrom: 'inverter' });
  assert.equal((await live(server)).get('inverter_1/grid_power'), -1200);
});

test('three-phase LV (type 5, SG04LP3): its own map, and settings written at 108..143', async () => {
  const table = new RegisterTable([
    [0, 0x0005],
    ...rated(20, 12000),
    [500, 2],
    [587, 5230], // 52.30 V
    [588, 81],
    [590, toWord(1500)], // discharging 1500 W
    [598, 2310],
    [625, toWord(2400)], // importing
    [653, toWord(3000)],
    [672, 1000],
    [673, 1200],
    [142, 0],
    [143, 9000],
  ]);
  const server = await serve(table);
  const values = await live(server);
  assertShown(values, {
    'inverter_1/model': 'Three-phase hybrid (LV)',
    'inverter_1/load_power': 3000,
    'inverter_1/grid_power': 2400,
    'inverter_1/pv_power': 2200,
    'battery_1/voltage': 52.3,
    'battery_1/state_of_charge': 81,
    'battery_1/power': -1500,
    'inverter_1/max_sell_power': 9000,
  });
  assert.equal(await writableMax(server, 'inverter_1/max_sell_power'), 12000);
  assert.equal((await write(server, 'inverter_1/work_mode', 'Zero export to CT')).status, 200);
  assert.deepEqual(table.writes.at(-1), { address: 142, values: [2] });
  assert.ok(!table.writes.some((w) => w.address >= 243 && w.address <= 245), 'nothing lands on single-phase addresses');
});

test('three-phase HV (type 6, SG01HP3): power in tens of watts, battery voltage in tenths', async () => {
  const table = new RegisterTable([
    [0, 0x0006],
    ...rated(20, 15000),
    [587, 4100], // 410.0 V
    [588, 64],
    [590, toWord(-250)], // charging 2500 W
    [653, 5000],
    [672, 300], // 3000 W
    [673, 150], // 1500 W
    [143, 1000], // 10000 W
  ]);
  const server = await serve(table);
  const values = await live(server);
  assertShown(values, {
    'inverter_1/model': 'Three-phase hybrid (HV)',
    'battery_1/voltage': 410,
    'battery_1/power': 2500,
    'inverter_1/pv_power': 4500,
    'inverter_1/max_sell_power': 10000,
  });
  assert.equal((await write(server, 'inverter_1/max_sell_power', '8000')).status, 200);
  assert.deepEqual(table.writes.at(-1), { address: 143, values: [800] });
});

test('an unknown device type (2, a string inverter) is refused with its code, and nothing is written', async () => {
  const table = new RegisterTable([[0, 0x0002], ...rated(16, 5000)]);
  const server = await serve(table);
  const failed = await instanceWhen(server, 'deye', (i) => i.state === 'failed', 'the instance to fail');
  assert.match(failed.last_error ?? '', /unknown model code 0x0002 in register 0/);
  assert.equal((await write(server, 'inverter_1/max_sell_power', '1000')).status >= 400, true);
  assert.deepEqual(table.writes, []);
});

test('Modbus diagnostics: an exception reply marks the devices unavailable naming it; malformed replies are not a timeout', async () => {
  class BusyTable extends RegisterTable {
    busy = false;
    override readHoldingRegisters(request: { address: number; count: number }): number[] {
      if (this.busy) throw new ModbusException({ code: 6 });
      return super.readHoldingRegisters(request);
    }
  }
  const table = new BusyTable([[0, 3], ...rated(16, 5000), [178, 300]]);
  const emulator = await startModbusEmulator({ transport: 'rtu-over-tcp', units: new Map([[1, table]]) });
  const server = await serveDriver(emulator, {
    plugin: 'deye',
    devices: ['inverter_1'],
    connection: await connectionTo(emulator, 'rtu-over-tcp'),
    config: { pollIntervalMs: 500, timeoutMs: 400 },
  });
  await live(server);
  table.busy = true;
  const busy = await instanceWhen(server, 'deye', (i) => i.device_status.some((d) => !d.available), 'unavailable');
  assert.match(busy.device_status[0]?.reason ?? '', /Modbus exception 6 \(server device busy\)/);
  await valuesWhen(server, (v) => v.get('inverter_1/load_power') === null, 'load power to read null');
  table.busy = false;
  await live(server);

  const bad = await malformedWhileCorrupt(server, 'deye', emulator); // every reply with a bad CRC
  assert.match(bad.device_status[0]?.reason ?? '', /malformed reply from unit 1 .*bad CRC/);
  assert.doesNotMatch(bad.device_status[0]?.reason ?? '', /no answer/);
  emulator.corruptNext(0);
});
