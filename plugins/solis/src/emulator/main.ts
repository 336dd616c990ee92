/**
 * The Solis hybrid emulator, as `heliograph emulate solis [--transport rtu-over-tcp|solarman|tcp]`
 * starts it: one inverter with its battery on unit 1 (or `unitId`).
 */
import { startOneUnitEmulator, type EmulatorOptions, type RunningEmulator } from '@heliograph/plugins-sdk/emulator';
import { SolisDevice } from './device.js';

export { SolisDevice } from './device.js';

export const transports = ['rtu-over-tcp', 'solarman', 'tcp'] as const;

/** The logger serial a Solarman emulator answers to unless told otherwise. */
export const DEFAULT_LOGGER_SERIAL = 4012345678;

/**
 * Starts an emulated Solis hybrid; `device` gives tests its state and settings.
 *
 * @example
 * const emulator = await startEmulator({ transport: 'rtu-over-tcp' });
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator & { device: SolisDevice }> {
  return startOneUnitEmulator(new SolisDevice({ now: options.now }), options, transports, {
    defaultLoggerSerial: DEFAULT_LOGGER_SERIAL,
  });
}
