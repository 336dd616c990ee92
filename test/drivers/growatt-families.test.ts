// The growatt driver against devices whose registers are laid out from the public
// definitions, not from our emulator: the Growatt Inverter Modbus RTU Protocol v1.24 (its
// register ranges per type, the storage block 1000..1124 with 1040 "Battery Temperature" (0.1
// °C, signed as 0xAHA/Growatt_ModbusTCP profiles/sph.py reads it), the SPA group 2000..2124,
// the holding "Priority set" 1070..1108, and 1044 "Priority", marked R), Growatt's DTC table
// (Table 3-1 of the VPP protocol V2.01/V2.03), whose codes the VPP protocol puts in holding
// 30000 "Equipment type (DTC)" (some units repeat them in holding 43, whose v1.20 list is
// another one), and the work modes SPH units report in input 0 (0xAHA/Growatt_ModbusTCP issue
// #363: 6 in bat on-grid operation). Each device is a plain table of raw register words that
// answers only its type's ranges, as the protocols list them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusException, ModbusExceptionCode, toWord } from '@heliograph/plugins-sdk/emulator';
import { assertShown, instanceWhen, modbusUnitServer, write } from './driver-api.js';
import { live } from './growatt-storage.js';

type Ranges = Array<[number, number]>;

/** Raw words by table; reads outside the type's ranges are refused (exception 2); writes land in holding. */
class RegisterTable {
  readonly writes: Array<{ address: number; values: number[] }> = [];
  constructor(
    private readonly ranges: { input: Ranges; holding: Ranges },
    private readonly input: Map<number, number>,
    private readonly holding: Map<number, number>,
  ) {}
  private read(table: 'input' | 'holding', address: number, count: number): number[] {
    if (!this.ranges[table].some(([from, to]) => address >= from && address + count - 1 <= to))
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    const words = table === 'input' ? this.input : this.holding;
    return Array.from({ length: count }, (_, i) => words.get(address + i) ?? 0);
  }
  readInputRegisters({ address, count }: { address: number; count: number }): number[] {
    return this.read('input', address, count);
  }
  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    return this.read('holding', address, count);
  }
  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    this.writes.push({ address, values });
    values.forEach((value, i) => this.holding.set(address + i, value));
  }
}

/** A u32 in 0.1 units, high word first. */
const u32 = (address: number, value: number): Array<[number, number]> => [
  [address, Math.floor((value * 10) / 0x10000)],
  [address + 1, (value * 10) & 0xffff],
];
/** The serial number in holding 23..27 (ASCII, two characters a word). */
const serial = (text: string): Array<[number, number]> =>
  Array.from({ length: 5 }, (_, i) => [23 + i, (text.charCodeAt(2 * i) << 8) | text.charCodeAt(2 * i + 1)]);

/** Storage(SPA Type): 03 0..124, 1000..1124; 04 1000..1124, 2000..2124, 1125..1249. */
const SPA_RANGES = {
  input: [
    [1000, 1124],
    [1125, 1249],
    [2000, 2124],
  ] as Ranges,
  holding: [
    [0, 124],
    [1000, 1124],
  ] as Ranges,
};
/**
 * Storage(SPH Type): 03 0..124, 1000..1124 (608 as the SPH notes use it); 04 0..124, 1000..1124;
 * an -UP unit also answers the VPP protocol's basic parameters, holding 30000..30099.
 */
const SPH_RANGES = {
  input: [
    [0, 124],
    [1000, 1124],
  ] as Ranges,
  holding: [
    [0, 124],
    [600, 624],
    [1000, 1124],
    [30000, 30099],
  ] as Ranges,
};

/** A three-phase SPA (DTC 3725) discharging 1850 W at night: house load 2300 W, importing 450 W. */
function spaTable(dtc: number): RegisterTable {
  const input = new Map<number, number>([
    [2000, 1], // normal
    ...u32(2035, 1850),
    [2037, 4998], // 49.98 Hz
    [2038, 2317], // 231.7 V
    [2093, 412], // 41.2 °C
    ...u32(1009, 1850), // discharging
    ...u32(1011, 0),
    [1013, 5124], // 512.4 V (a high-voltage stack)
    [1014, 64],
    ...u32(1021, 450), // to the user: import
    ...u32(1029, 0),
    ...u32(1037, 2300),
    [1040, toWord(-35)], // -3.5 °C
    ...u32(1044, 3.2),
    ...u32(1052, 4.1),
  ]);
  const holding = new Map<number, number>([...serial('SPA10K3725'), [43, dtc], [1044, 0], [1091, 100], [1100, 0x0130]]);
  return new RegisterTable(SPA_RANGES, input, holding);
}

const serve = modbusUnitServer({
  plugin: 'growatt',
  transport: 'rtu-over-tcp',
  devices: ['inverter_1', 'battery_1'],
  config: { pollIntervalMs: 1000, timeoutMs: 400 },
});

test('SPA 4000-10000TL3 BH (DTC 3725) from the protocol layout: values, signs, a time-slot write that keeps the other byte', async () => {
  const table = spaTable(3725);
  const server = await serve(table);
  const values = await live(server);
  assert.equal(values.get('battery_1/power'), -1850, '+ charging: discharging reads negative');
  assert.equal(values.get('inverter_1/grid_power'), 450, '+ import');
  assert.equal(values.get('battery_1/temperature'), -3.5, 'signed battery temperature (1040)');
  assertShown(values, {
    'inverter_1/model': 'SPA 4000-10000TL3 BH',
    'inverter_1/serial_number': 'SPA10K3725',
    'inverter_1/load_power': 2300,
    'inverter_1/output_power': 1850,
    'inverter_1/grid_frequency': 49.98,
    'inverter_1/grid_voltage': 231.7,
    'inverter_1/temperature': 41.2,
    'battery_1/voltage': 512.4,
    'battery_1/state_of_charge': 64,
    'inverter_1/grid_import_energy_today': 3.2,
    'inverter_1/battery_discharge_energy_today': 4.1,
    'inverter_1/battery_first_slot_1_start_hour': 1,
    'inverter_1/battery_first_slot_1_start_minute': 48,
  });
  assert.equal((await write(server, 'inverter_1/battery_first_slot_1_start_hour', '5')).status, 200);
  assert.deepEqual(table.writes.at(-1), { address: 1100, values: [0x0530] }, '05:48, the minute kept');
  assert.ok(!table.writes.some((w) => w.address < 1000), 'nothing written outside the SPA holding block');
});

test('1044 "Priority" is read-only in the v1.24 table: the driver shows it and never writes it', async () => {
  const table = spaTable(3725);
  table.writes.length = 0;
  const server = await serve(table);
  const values = await live(server);
  assert.equal(values.get('inverter_1/energy_priority'), 'Load first');
  const answer = await write(server, 'inverter_1/energy_priority', 'Battery first');
  assert.ok(answer.status >= 400, `refused: ${answer.status} ${answer.body}`);
  assert.deepEqual(table.writes, [], 'nothing written');
});

test('an unknown device type code is refused naming it, and nothing is written', async () => {
  const table = spaTable(5200); // a MIN string inverter's code
  const server = await serve(table);
  const failed = await instanceWhen(server, 'growatt', (i) => i.state === 'failed', 'the instance to fail');
  assert.match(
    failed.last_error ?? '',
    /unknown device type code \(holding 30000 refused \(no VPP range\), 5200 in holding 43\)/,
  );
  assert.match(failed.last_error ?? '', /set "family"/);
  assert.equal((await write(server, 'inverter_1/energy_priority', 'Battery first')).status >= 400, true);
  assert.deepEqual(table.writes, []);
});

test('an unknown code with family "spa" configured reads the SPA map', async () => {
  const server = await serve(spaTable(0), { family: 'spa' });
  const values = await live(server);
  assert.equal(values.get('inverter_1/model'), 'SPA (family from config)');
  assert.equal(values.get('battery_1/power'), -1850);
});

test('SPH BL-UP (DTC 3502 in holding 30000) from the protocol layouts: PV from input 0..124, the SOC floor at 608, a signed battery temperature at 1040', async () => {
  const input = new Map<number, number>([
    [0, 6], // bat online: a work mode of input 1000, as an SPH 4600 reports it in input 0
    ...u32(1, 2600),
    [3, 3610],
    ...u32(5, 1500),
    ...u32(9, 1100),
    ...u32(35, 2400),
    ...u32(1009, 0),
    ...u32(1011, 800),
    [1013, 526],
    [1014, 77],
    ...u32(1021, 0),
    ...u32(1029, 300),
    ...u32(1037, 1500),
    [1040, toWord(-35)], // -3.5 °C: a battery in a cold garage
    [1089, 120], // BMS_BatteryTemp, in the BMS's own units
  ]);
  // Holding 43 holds a v1.20 topology code (0x0200: 2 trackers, single phase), not Table 3-1's.
  const holding = new Map([...serial('SPH0003502'), [43, 0x0200], [608, 10], [30000, 3502], [30099, 201]]);
  const table = new RegisterTable(SPH_RANGES, input, holding);
  const server = await serve(table);
  const values = await live(server);
  assert.equal(values.get('inverter_1/model'), 'SPH 3000-6000TL', 'identified by holding 30000');
  assert.equal(values.get('inverter_1/device_mode'), 'Battery online', 'work mode 6 has its label');
  assert.equal(values.get('inverter_1/pv_power'), 2600);
  assert.equal(values.get('inverter_1/pv_voltage_1'), 361);
  assert.equal(values.get('battery_1/power'), 800);
  assert.equal(values.get('inverter_1/grid_power'), -300);
  assert.equal(values.get('battery_1/temperature'), -3.5, 'input 1040, signed');
  assert.equal((await write(server, 'inverter_1/min_soc', '20')).status, 200);
  assert.deepEqual(table.writes.at(-1), { address: 608, values: [20] });
});
