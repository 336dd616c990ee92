import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { SettingDeclaration } from '../../src/context.js';
import { DeviceRefusedError } from '../../src/errors.js';
import {
  defineRegisterMap,
  ModbusExceptionError,
  openModbus,
  readRegisterMap,
  registerMapDeclarations,
  type RegisterEntry,
} from '../../src/connections/index.js';
import { decodeEntry, encodeEntry, mergeBits } from '../../src/connections/register-values.js';
import { FakeModbusDevice, FakeTcpDevice, mbapServer } from './fake-device.js';

const u16 = (name: string, address: number, extra: Partial<RegisterEntry> = {}): RegisterEntry => ({
  name,
  displayName: name,
  address,
  type: 'u16',
  ...extra,
});

describe('register values', () => {
  test('integer, float and string types, word order, scale, offset and sign', () => {
    assert.equal(decodeEntry(u16('a', 0, { type: 's16' }), [0xfffe]), -2);
    assert.equal(decodeEntry(u16('a', 0, { type: 'u32' }), [0x0001, 0x0002]), 0x10002);
    assert.equal(decodeEntry(u16('a', 0, { type: 'u32', wordOrder: 'low-first' }), [0x0002, 0x0001]), 0x10002);
    assert.equal(decodeEntry(u16('a', 0, { type: 's32' }), [0xffff, 0xff38]), -200);
    assert.equal(decodeEntry(u16('a', 0, { type: 'f32' }), [0x4049, 0x0fdb]), 3.141593);
    assert.equal(decodeEntry(u16('a', 0, { type: 'string', length: 3 }), [0x5341, 0x4e20, 0x0000]), 'SAN');
    assert.equal(decodeEntry(u16('a', 0, { scale: 0.1 }), [2345]), 234.5);
    // Deye's battery temperature: raw 0.1 °C with an offset of 100 °C.
    assert.equal(decodeEntry(u16('a', 0, { scale: 0.1, offset: -100 }), [1253]), 25.3);
    // Battery power reported + discharging; Heliograph wants + charging.
    assert.equal(decodeEntry(u16('a', 0, { type: 's16', invert: true }), [500]), -500);
    assert.equal(decodeEntry(u16('a', 0, { type: 's16', invert: true }), [0]), 0);
    const modes = u16('m', 0, { options: [{ value: 2, label: 'On-grid' }] });
    assert.equal(decodeEntry(modes, [2]), 'On-grid');
    assert.equal(decodeEntry(modes, [7]), 'Unknown (7)');
  });

  test('encoding is the inverse of decoding', () => {
    const cases: Array<[RegisterEntry, number | string]> = [
      [u16('a', 0, { type: 's16', invert: true, scale: 10 }), -1200],
      [u16('a', 0, { type: 's32', wordOrder: 'low-first' }), -70000],
      [u16('a', 0, { type: 'f32' }), 1.5],
      [u16('a', 0, { scale: 0.1, offset: -100 }), 25.3],
      [u16('a', 0, { options: [{ value: 3, label: 'Zero export' }] }), 'Zero export'],
    ];
    for (const [entry, value] of cases) assert.equal(decodeEntry(entry, encodeEntry(entry, value)), value);
    assert.throws(() => encodeEntry(u16('m', 0, { options: [{ value: 1, label: 'A' }] }), 'B'), /not one of A/);
  });
});

describe('register map extensions', () => {
  test('64-bit values in either word order, bit fields, and merging bits into a register', () => {
    const words = [0x0000, 0x0001, 0x0002, 0x0003];
    assert.equal(decodeEntry(u16('a', 0, { type: 'u64' }), words), 0x0001_0002_0003);
    assert.equal(
      decodeEntry(u16('a', 0, { type: 'u64', wordOrder: 'low-first' }), [...words].reverse()),
      0x0001_0002_0003,
    );
    assert.equal(decodeEntry(u16('a', 0, { type: 's64' }), [0xffff, 0xffff, 0xffff, 0xff38]), -200);
    assert.deepEqual(
      encodeEntry(u16('a', 0, { type: 's64', wordOrder: 'low-first' }), -200),
      [0xff38, 0xffff, 0xffff, 0xffff],
    );
    // Deye's time-of-use flags: charge bits 0x03, mode bits 0x1c, sell bit 0x40 in one register.
    const mode = u16('mode', 0, { mask: 0x1c });
    assert.equal(decodeEntry(mode, [0x4d]), 3);
    assert.equal(mergeBits(mode, 0x41, 3), 0x4d);
    assert.equal(mergeBits(mode, 0x5d, 0), 0x41);
  });

  test('internal entries are read but not published or declared; derived entries are computed and declared', () => {
    const map = defineRegisterMap({
      registers: [
        u16('charge_w', 10, { device: 'battery', internal: true }),
        u16('discharge_w', 11, { device: 'battery', internal: true }),
        u16('pv_1', 12),
        u16('pv_2', 13),
      ],
      derived: [
        {
          name: 'power',
          displayName: 'Power',
          unit: 'W',
          device: 'battery',
          derive: { difference: ['charge_w', 'discharge_w'] },
        },
        { name: 'pv_power', displayName: 'PV power', unit: 'W', derive: { sum: ['pv_1', 'pv_2'] } },
        { name: 'pv_kw', displayName: 'PV kW', derive: { of: ['pv_power'], expression: (v) => v.pv_power! / 1000 } },
      ],
    });
    assert.deepEqual(map.blocks.length, 1);
    const declared = registerMapDeclarations(map, { device: 'battery', modbus: undefined as never, unitId: 1 });
    assert.deepEqual(
      declared.metrics.map((m) => m.name),
      ['power'],
    );
    assert.throws(
      () =>
        defineRegisterMap({
          registers: [u16('a', 0)],
          derived: [{ name: 'b', displayName: 'b', derive: { sum: ['x'] } }],
        }),
      /derived "b" needs "x"/,
    );
    assert.throws(() => defineRegisterMap({ registers: [u16('a', 0, { type: 'u32', mask: 1 })] }), /mask needs a u16/);
  });
});

describe('defineRegisterMap', () => {
  test('groups near registers into as few requests as allowed', () => {
    const map = defineRegisterMap({
      maxGap: 3,
      registers: [
        u16('d', 21),
        u16('a', 10),
        u16('b', 11, { type: 'u32' }),
        u16('c', 16),
        u16('e', 5, { table: 'input' }),
      ],
    });
    assert.deepEqual(
      map.blocks.map((b) => [b.table, b.address, b.count, b.entries.map((e) => e.name)]),
      [
        ['holding', 10, 7, ['a', 'b', 'c']], // 13..15 is a gap of 3: read through it
        ['holding', 21, 1, ['d']], // 17..20 is a gap of 4: a second request
        ['input', 5, 1, ['e']],
      ],
    );
  });

  test('never reads across an unreadable range, nor more than maxCount registers', () => {
    const map = defineRegisterMap({
      maxCount: 4,
      unreadable: [{ from: 3, to: 3 }],
      registers: [0, 1, 2, 4, 5, 6, 7, 8].map((a) => u16(`r${a}`, a)),
    });
    assert.deepEqual(
      map.blocks.map((b) => [b.address, b.count]),
      [
        [0, 3],
        [4, 4],
        [8, 1],
      ],
    );
  });

  test('rejects a map with mistakes', () => {
    assert.throws(() => defineRegisterMap({ registers: [u16('a', 1), u16('a', 2)] }), /declared twice/);
    assert.throws(() => defineRegisterMap({ registers: [u16('s', 1, { type: 'string' })] }), /length/);
    assert.throws(() => defineRegisterMap({ registers: [u16('w', 1, { writable: true })] }), /needs options/);
    assert.throws(
      () => defineRegisterMap({ unreadable: [{ from: 0, to: 9 }], registers: [u16('x', 5)] }),
      /unreadable/,
    );
    assert.throws(() => defineRegisterMap({ maxCount: 126, registers: [] }), /maxCount/);
  });
});

describe('readRegisterMap and registerMapDeclarations against a device', () => {
  const device = new FakeModbusDevice();
  const fake = new FakeTcpDevice(mbapServer, device);
  after(() => fake.stop());

  const map = defineRegisterMap({
    maxGap: 4,
    registers: [
      u16('pv_power', 100, { unit: 'W' }),
      u16('grid_power', 101, { type: 's16', invert: true, unit: 'W' }),
      u16('pv_energy_today', 104, { scale: 0.1, unit: 'kWh', stateClass: 'total_increasing' }),
      u16('state_of_charge', 200, { device: 'battery', unit: '%' }),
      u16('energy_priority', 300, {
        options: [
          { value: 0, label: 'Battery first' },
          { value: 1, label: 'Load first' },
        ],
        writable: true,
      }),
      u16('max_charge_current', 301, { unit: 'A', writable: { min: 0, max: 185, step: 1 } }),
      u16('zero_export', 302, { unit: 'W', scale: 10, writable: { min: 0, max: 5000 } }),
    ],
  });

  test('reads every value with one request per planned block', async () => {
    await fake.start();
    const values = [
      [100, 1830],
      [101, 420],
      [102, 0],
      [103, 0],
      [104, 123],
      [200, 87],
      [300, 1],
      [301, 50],
      [302, 20],
    ];
    for (const [address, value] of values) device.holding.set(address!, value!);
    const modbus = openModbus({ type: 'tcp', host: '127.0.0.1', port: fake.port });
    try {
      const read = await readRegisterMap(modbus, 1, map);
      assert.deepEqual(read, {
        inverter: {
          pv_power: 1830,
          grid_power: -420,
          pv_energy_today: 12.3,
          energy_priority: 'Load first',
          max_charge_current: 50,
          zero_export: 200,
        },
        battery: { state_of_charge: 87 },
        internal: { inverter: {}, battery: {} },
      });
      assert.equal(device.served.length, 3, 'three blocks: 100..104, 200, 300..302');
    } finally {
      modbus.release();
    }
  });

  test('declares metrics and settings; writes are read back and refusals told apart', async () => {
    const modbus = openModbus({ type: 'tcp', host: '127.0.0.1', port: fake.port });
    try {
      const inverter = registerMapDeclarations(map, { device: 'inverter', modbus, unitId: 1 });
      assert.deepEqual(
        inverter.metrics.map((m) => [m.name, m.type, m.unit]),
        [
          ['pv_power', 'number', 'W'],
          ['grid_power', 'number', 'W'],
          ['pv_energy_today', 'number', 'kWh'],
        ],
      );
      assert.equal(inverter.metrics[2]?.stateClass, 'total_increasing');
      assert.ok(!('deviceClass' in inverter.metrics[0]!), 'an unset class stays unset, for the core to derive');
      assert.deepEqual(
        registerMapDeclarations(map, { device: 'battery', modbus, unitId: 1 }).metrics.map((m) => m.name),
        ['state_of_charge'],
      );
      const [priority, current, zeroExport] = inverter.settings.map(asRangeOrOptions);
      assert.ok(priority?.options && current?.min !== undefined && zeroExport?.min !== undefined);
      assert.deepEqual(priority.options, [
        { value: 0, label: 'Battery first' },
        { value: 1, label: 'Load first' },
      ]);
      assert.deepEqual([current.min, current.max, current.step], [0, 185, 1]);
      const signal = new AbortController().signal;

      await priority.write({ value: 0, label: 'Battery first', signal });
      assert.equal(device.holding.get(300), 0);
      await zeroExport.write({ value: 3000, signal });
      assert.equal(device.holding.get(302), 300, 'scaled on the way out');

      device.readOnly.add(301);
      await assert.rejects(current.write({ value: 60, signal }), ModbusExceptionError);
      device.readOnly.delete(301);
      device.ignoresWrites.add(301);
      await assert.rejects(current.write({ value: 60, signal }), (error: unknown) => {
        assert.ok(error instanceof DeviceRefusedError);
        assert.equal(error.answer, 'register 301 holds 50 after writing 60');
        return true;
      });
    } finally {
      modbus.release();
    }
  });
});

/** A declared setting seen through the fields register maps use (they declare no switches). */
interface MapSetting {
  options?: readonly unknown[];
  min?: number;
  max?: number;
  step?: number;
  write(args: { value: number | string; label?: string; signal: AbortSignal }): Promise<void>;
}

function asRangeOrOptions(setting: SettingDeclaration): MapSetting {
  assert.notEqual(setting.kind, 'switch');
  return setting as unknown as MapSetting;
}
