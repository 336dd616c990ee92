/**
 * The Huawei SUN2000 emulator, as `heliograph emulate huawei` starts it: one SUN2000 with a
 * LUNA2000 and a power meter on Modbus TCP, answering on unit 1 (or `unitId`), as an SDongle
 * forwards to its first inverter, and on unit 0, as the inverter's own port answers; or on RTU
 * frames over TCP (an RS485 gateway on the inverter's COM port).
 */
import {
  pickTransport,
  startModbusEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
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
  const device = new HuaweiDevice({ now: options.now });
  const running = await startModbusEmulator({
    transport: pickTransport(options.transport, transports),
    units: new Map([
      [options.unitId ?? 1, device],
      [0, device],
    ]),
    host: options.host,
    port: options.port,
  });
  return Object.assign(running, { device });
}
