/**
 * The GoodWe ET emulator, as `heliograph emulate goodwe [--transport udp|rtu-over-tcp]`
 * starts it: by default Modbus RTU in UDP datagrams with replies prefixed AA 55, as the
 * inverter's Wi-Fi/LAN module answers on port 8899, on unit 0xF7 (or `unitId`).
 */
import {
  pickTransport,
  startModbusEmulator,
  startUdpModbusEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { GoodweDevice } from './device.js';

export { GoodweDevice } from './device.js';

export const transports = ['udp', 'rtu-over-tcp'] as const;

/**
 * Starts an emulated GoodWe ET; `device` gives tests its state and settings.
 *
 * @example
 * const emulator = await startEmulator({ port: 0 }); // UDP, AA 55 replies, unit 247
 */
export async function startEmulator(
  options: EmulatorOptions = {},
): Promise<RunningEmulator & { device: GoodweDevice }> {
  const device = new GoodweDevice({ now: options.now });
  const units = new Map([[options.unitId ?? 0xf7, device]]);
  const { host, port } = options;
  const running =
    pickTransport(options.transport, transports) === 'udp'
      ? await startUdpModbusEmulator({ units, replyPrefix: 'aa55', host, port })
      : await startModbusEmulator({ transport: 'rtu-over-tcp', units, host, port });
  return Object.assign(running, { device });
}
