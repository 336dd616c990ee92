/**
 * The Deye emulator, as `heliograph emulate deye [--transport tcp|rtu-over-tcp|solarman]`
 * starts it: one inverter with its battery on unit 1 (or `unitId`), behind Modbus TCP, RTU
 * frames over TCP (an RS485 gateway) or a Solarman V5 logger (`--double-crc`: with the two
 * trailing zero bytes some loggers add); `--model three-phase-lv|three-phase-hv` for the
 * three-phase units.
 */
import {
  MODBUS_TRANSPORTS,
  pickTransport,
  startOneUnitEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { DeyeDevice } from './device.js';
import { DEYE_EMULATOR_MODELS } from './models.js';

export { DeyeDevice, type DeyeDeviceOptions } from './device.js';
export { DEYE_EMULATOR_MODELS, type DeyeEmulatorModel } from './models.js';
export type { TouEffect } from './tou.js';

export const transports = MODBUS_TRANSPORTS;

/** The logger serial a Solarman emulator answers to unless told otherwise. */
export const DEFAULT_LOGGER_SERIAL = 2712345678;

/**
 * Starts an emulated Deye inverter; `device` gives tests its state and settings.
 *
 * @example
 * const emulator = await startEmulator({ transport: 'solarman', loggerSerial: 1234567890 });
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator & { device: DeyeDevice }> {
  const model = pickTransport(options.model, DEYE_EMULATOR_MODELS);
  const device = new DeyeDevice({ now: options.now, model });
  return startOneUnitEmulator(device, options, transports, {
    defaultLoggerSerial: DEFAULT_LOGGER_SERIAL,
    doubleCrc: options.doubleCrc ?? false,
  });
}
