/**
 * The Growatt SPH emulator, as `heliograph emulate growatt [--transport tcp|rtu-over-tcp]`
 * starts it: one inverter with its battery on unit 1 (or `unitId`).
 */
import { startOneUnitEmulator, type EmulatorOptions, type RunningEmulator } from '@heliograph/plugins-sdk/emulator';
import { GrowattDevice } from './device.js';

export { GrowattDevice, type GrowattSettings } from './device.js';

export const transports = ['rtu-over-tcp', 'tcp'] as const;

/**
 * Starts an emulated Growatt SPH; `device` gives tests its state and settings.
 *
 * @example
 * const emulator = await startEmulator({ transport: 'rtu-over-tcp' });
 */
export async function startEmulator(
  options: EmulatorOptions = {},
): Promise<RunningEmulator & { device: GrowattDevice }> {
  return startOneUnitEmulator(new GrowattDevice({ now: options.now }), options, transports);
}
