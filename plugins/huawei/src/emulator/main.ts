/**
 * The Huawei SUN2000 emulator, as `heliograph emulate huawei` starts it: one SUN2000 with a
 * LUNA2000 and a power meter on Modbus TCP, answering on unit 1 (or `unitId`), as an SDongle
 * forwards to its first inverter, and on unit 0, as the inverter's own port answers; or on RTU
 * frames over TCP (an RS485 gateway on the inverter's COM port).
 */
import { startOneUnitEmulator, type EmulatorOptions, type RunningEmulator } from '@heliograph/plugins-sdk/emulator';
import { HuaweiDevice } from './device.js';

export { HuaweiDevice } from './device.js';

export const transports = ['tcp', 'rtu-over-tcp'] as const;

/**
 * Starts an emulated SUN2000; `device` gives tests its state, settings and clock.
 *
 * @example
 * const emulator = await startEmulator({ port: 0, now: () => new Date(2026, 5, 21, 12) });
 */
export async function startEmulator(
  options: EmulatorOptions = {},
): Promise<RunningEmulator & { device: HuaweiDevice }> {
  return startOneUnitEmulator(new HuaweiDevice({ now: options.now }), options, transports, { alsoOnUnits: [0] });
}
