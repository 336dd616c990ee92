/**
 * The SunSpec emulator, as `heliograph emulate sunspec` starts it: one SunSpec hybrid
 * inverter on Modbus TCP (unit 1 unless told otherwise), or on RTU frames over TCP.
 */
import {
  pickTransport,
  startModbusEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { SunSpecDevice } from './device.js';

export { SunSpecDevice, SUNSPEC_BASE } from './device.js';

export const transports = ['tcp', 'rtu-over-tcp'] as const;

/**
 * Starts an emulated SunSpec inverter; `device` gives tests its state and settings.
 *
 * @example
 * const emulator = await startEmulator({ port: 0 });
 */
export async function startEmulator(
  options: EmulatorOptions = {},
): Promise<RunningEmulator & { device: SunSpecDevice }> {
  const device = new SunSpecDevice({ now: options.now });
  const running = await startModbusEmulator({
    transport: pickTransport(options.transport, transports),
    units: new Map([[options.unitId ?? 1, device]]),
    host: options.host,
    port: options.port,
  });
  return Object.assign(running, { device });
}
