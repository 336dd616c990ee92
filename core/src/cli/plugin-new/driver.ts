/*
 * The files of a new device driver: a Modbus inverter read through a register map over any
 * connection (TCP, a serial port, an RS485 gateway, a Solarman logger), one setting, and the
 * emulator of the device its test runs against.
 */
import type { Template } from './template.js';

export function driverFiles(t: Template): Record<string, string> {
  return {
    'src/register-map.ts': registerMapFile(t),
    'src/index.ts': indexFile(t),
    'src/emulator/main.ts': emulatorFile(t),
    'test/index.test.ts': testFile(),
  };
}

/** The register map the driver reads and the emulator serves. */
function registerMapFile(t: Template): string {
  return `/**
 * Where ${t.name} keeps its values. Replace the entries with your device's registers (its
 * Modbus documentation is the truth); the emulator in src/emulator/ holds the same map.
 */
import { defineRegisterMap } from '@heliograph/plugins-sdk/connections';

export const ADDRESS = { pvPower: 0, gridPower: 1, maxChargeCurrent: 10 } as const;

export const map = defineRegisterMap({
  registers: [
    { name: 'pv_power', displayName: 'PV power', unit: 'W', address: ADDRESS.pvPower, type: 'u16' },
    // Heliograph's grid_power is + import, - export.
    { name: 'grid_power', displayName: 'Grid power', unit: 'W', address: ADDRESS.gridPower, type: 's16' },
    {
      name: 'max_charge_current',
      displayName: 'Max charge current',
      unit: 'A',
      address: ADDRESS.maxChargeCurrent,
      type: 'u16',
      writable: { min: 0, max: 100, step: 1 },
    },
  ],
});
`;
}

/** The driver: its config, what it publishes and its one setting. */
function indexFile(t: Template): string {
  return `/**
 * ${t.name}: one inverter over Modbus, read with a register map on each poll. The connection
 * (tcp, serial, rtu-over-tcp, solarman) comes from the instance's config; the unit id from
 * the device's (\`{ "id": "inverter_1", "config": { "unitId": 1 } }\`, default 1).
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';
import {
  connectionSchema,
  pollingFields,
  pollRegisterMapInverter,
  unitIdDeviceConfigSchema,
} from '@heliograph/plugins-sdk/connections';
import { map } from './register-map.js';

export const configSchema = z.strictObject({ connection: connectionSchema, ...pollingFields });

export default definePlugin({
  id: '${t.id}',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  // Declares the map's metrics and settings, reads it on each poll and publishes the values;
  // a unit that does not answer marks the inverter unavailable until it does.
  setup: (ctx, config) => pollRegisterMapInverter(ctx, config, { plugin: '${t.id}', map }),
});
`;
}

/** The emulator of the device, for the test and `heliograph emulate`. */
function emulatorFile(t: Template): string {
  return `/**
 * The emulator of ${t.name}, as \`heliograph emulate ${t.id} --plugin-dir .\` starts it: one
 * device on unit 1 (or \`unitId\`) behind Modbus TCP, RTU frames over TCP (a gateway; bridge
 * it to a pseudo-terminal with socat for a serial port) or a Solarman V5 logger.
 */
import {
  MODBUS_TRANSPORTS,
  ModbusException,
  ModbusExceptionCode,
  startOneUnitEmulator,
  type EmulatorOptions,
  type ModbusDevice,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { ADDRESS } from '../register-map.js';

export const transports = MODBUS_TRANSPORTS;

/** The device's registers; make its values follow what the real device does. */
export class Device implements ModbusDevice {
  readonly registers = new Array<number>(64).fill(0);

  constructor() {
    this.registers[ADDRESS.pvPower] = 1830;
    this.registers[ADDRESS.gridPower] = 0x10000 - 250; // -250 W: exporting
    this.registers[ADDRESS.maxChargeCurrent] = 50;
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    if (address + count > this.registers.length)
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    return this.registers.slice(address, address + count);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    if (address !== ADDRESS.maxChargeCurrent || values.length !== 1 || values[0]! > 100)
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    this.registers[address] = values[0]!;
  }
}

/** Starts the emulated device; \`device\` gives tests its registers. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator & { device: Device }> {
  return startOneUnitEmulator(new Device(), options, transports, { defaultLoggerSerial: 2712345678 });
}
`;
}

/** The test: the driver against its emulator, over TCP. */
function testFile(): string {
  return `import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestHost, stopTestHosts } from '@heliograph/plugins-sdk/testing';
import plugin from '../src/index.js';
import { startEmulator } from '../src/emulator/main.js';

const emulator = await startEmulator({ transport: 'tcp' });
after(async () => {
  await stopTestHosts();
  await emulator.close();
});
const config = { connection: { type: 'tcp', host: emulator.host, port: emulator.port }, pollIntervalMs: 1000 };

test('reads the register map on each poll', async () => {
  const host = await startTestHost({ plugin, config, devices: ['inverter_1'], manifest: { kind: 'inverter' } });
  await host.runJob('poll');
  assert.equal(host.value('inverter_1/pv_power'), 1830);
  assert.equal(host.value('inverter_1/grid_power'), -250);
  assert.equal(host.status.state, 'running', String(host.status.last_error));
});

test('writes a setting to the device, which keeps it', async () => {
  const host = await startTestHost({ plugin, config, devices: ['inverter_1'], manifest: { kind: 'inverter' } });
  await host.write('inverter_1/max_charge_current', '80');
  assert.equal(emulator.device.registers[10], 80);
  await assert.rejects(host.write('inverter_1/max_charge_current', '150'), /not allowed/);
});
`;
}
