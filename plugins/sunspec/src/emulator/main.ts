/**
 * The SunSpec emulator, as `heliograph emulate sunspec` starts it: one SunSpec hybrid
 * inverter on Modbus TCP (unit 1 unless told otherwise), or on RTU frames over TCP.
 */
import { startOneUnitEmulator, type EmulatorOptions, type RunningEmulator } from '@heliograph/plugins-sdk/emulator';
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
  return startOneUnitEmulator(new SunSpecDevice({ now: options.now }), options, transports);
}
