/**
 * The Voltronic emulator, as `heliograph emulate voltronic` starts it: PI30 on raw TCP, as a
 * serial-to-TCP bridge carries the inverter's RS232 port. A command with a wrong CRC, or
 * one the device does not take, is answered `(NAK`.
 */
import {
  startFrameEmulator,
  type EmulatorOptions,
  type FrameProtocol,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { pi30Frame, pi30FrameLength, pi30Text, RESERVED_CRC_BYTES } from '../pi30.js';
import { VoltronicDevice, type Pi30Model } from './device.js';

export { VoltronicDevice, CHARGE_CURRENTS, UTILITY_CHARGE_CURRENTS, type Pi30Model } from './device.js';

export const transports = ['tcp'] as const;

/** PI30 framing around a device; corruption moves the reply's first CRC byte. */
export function pi30Protocol(device: VoltronicDevice): FrameProtocol {
  return {
    frameLength: pi30FrameLength,
    answer(request) {
      const command = pi30Text(request);
      return pi30Frame(command === undefined ? '(NAK' : device.answer(command));
    },
    corrupt(reply) {
      const copy = Buffer.from(reply);
      const at = copy.length - 3;
      do copy[at] = (copy[at]! + 1) & 0xff;
      while (RESERVED_CRC_BYTES.has(copy[at]));
      return copy;
    },
  };
}

/**
 * Starts an emulated Voltronic inverter (an HS unless `model` says otherwise); `device` gives
 * tests its state and settings.
 *
 * @example
 * const emulator = await startEmulator({ port: 0, model: 'MKS' });
 */
export async function startEmulator(
  options: EmulatorOptions & { model?: Pi30Model } = {},
): Promise<RunningEmulator & { device: VoltronicDevice }> {
  const device = new VoltronicDevice({ now: options.now, model: options.model });
  return startFrameEmulator(options, { transports, name: 'device', device, protocol: pi30Protocol });
}
