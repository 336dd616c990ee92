/**
 * The Pylontech emulator, as `heliograph emulate pylontech` starts it: a stack of packs on
 * one RS485 bus, carried over raw TCP as a serial bridge does. A frame with a wrong CHKSUM
 * or LENGTH check is answered with the matching return code; a frame for an address no
 * pack has gets no answer.
 */
import {
  startFrameEmulator,
  type EmulatorOptions,
  type FrameProtocol,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { checksum, parsePylonFrame, pylonFrame, pylonFrameLength } from '../protocol.js';
import { PylontechStack } from './stack.js';

export { PylontechStack, type Pack } from './stack.js';

export const transports = ['tcp'] as const;

/** The protocol around a stack; corruption makes the reply's CHKSUM wrong. */
export function pylontechProtocol(stack: PylontechStack): FrameProtocol {
  return {
    frameLength: pylonFrameLength,
    answer(request) {
      if (request[0] !== 0x7e) return undefined;
      const parsed = parsePylonFrame(request);
      if ('frame' in parsed) {
        const reply = stack.answer(parsed.frame);
        return reply && pylonFrame(reply);
      }
      // A damaged frame still names its address: only that pack answers, with the error.
      const adr = parseInt(request.subarray(3, 5).toString('ascii'), 16);
      if (!stack.packs.some((p) => p.address === adr)) return undefined;
      return pylonFrame({ ver: 0x20, adr, cid1: 0x46, cid2: parsed.error, info: '' });
    },
    corrupt(reply) {
      const text = reply.toString('ascii');
      const wrong = checksum(text.slice(1, -5) + '0');
      return Buffer.from(text.slice(0, -5) + wrong + '\r', 'ascii');
    },
  };
}

/**
 * Starts an emulated stack of `packs` packs at addresses 2, 3, ... (default 2 packs).
 *
 * @example
 * const emulator = await startEmulator({ port: 0, packs: 3 });
 */
export async function startEmulator(
  options: EmulatorOptions & { packs?: number } = {},
): Promise<RunningEmulator & { stack: PylontechStack }> {
  const stack = new PylontechStack({ now: options.now, packs: options.packs });
  return startFrameEmulator(options, { transports, name: 'stack', device: stack, protocol: pylontechProtocol });
}
