/**
 * The Growatt emulator, as `heliograph emulate growatt [--transport tcp|rtu-over-tcp]
 * [--model sph|spa]` starts it: one inverter with its battery on unit 1 (or `unitId`), an SPH
 * hybrid by default or an SPA (AC-coupled) with `--model spa`.
 */
import {
  pickTransport,
  startOneUnitEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { GROWATT_EMULATOR_MODELS, GrowattDevice } from './device.js';

export {
  GROWATT_EMULATOR_MODELS,
  GrowattDevice,
  MAX_BATTERY_W,
  type GrowattDeviceOptions,
  type GrowattFlows,
  type GrowattEmulatorModel,
  type GrowattSettings,
} from './device.js';

export const transports = ['rtu-over-tcp', 'tcp'] as const;

/**
 * Starts an emulated Growatt SPH (or SPA with `model: 'spa'`); `device` gives tests its state and settings.
 *
 * @example
 * const emulator = await startEmulator({ transport: 'rtu-over-tcp', model: 'spa' });
 */
export async function startEmulator(
  options: EmulatorOptions = {},
): Promise<RunningEmulator & { device: GrowattDevice }> {
  const model = pickTransport(options.model, GROWATT_EMULATOR_MODELS);
  return startOneUnitEmulator(new GrowattDevice({ now: options.now, model }), options, transports);
}
