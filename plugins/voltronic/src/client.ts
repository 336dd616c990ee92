/**
 * Asking a PI30 device over a shared stream link: one command, one CRC-checked reply. A
 * reply whose CRC is wrong is counted by the link (`stats.badFrames`) and skipped; since the
 * device sends nothing more, the link writes the command once again (`resendOnBadFrame`).
 */
import { DeviceRefusedError } from '@heliograph/plugins-sdk';
import type { StreamLink } from '@heliograph/plugins-sdk/connections';
import { pi30Frame, pi30FrameLength, pi30Text } from './pi30.js';

export class Pi30Client {
  constructor(
    private readonly link: StreamLink,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Sends a setting command (`POP01`) and resolves on `(ACK`.
   *
   * @throws DeviceRefusedError with the device's answer on `(NAK` or anything else.
   */
  async set(command: string, signal?: AbortSignal): Promise<void> {
    const reply = await this.ask(command, signal);
    if (reply !== '(ACK')
      throw new DeviceRefusedError({ answer: reply, message: `the device refused ${command}: ${reply}` });
  }

  /**
   * The reply text to `command` (starting with `(`).
   *
   * @throws NoAnswerError when no valid reply came in time (a corrupted reply is asked again once).
   */
  async ask(command: string, signal?: AbortSignal): Promise<string> {
    const reply = await this.link.request(pi30Frame(command), {
      complete: pi30FrameLength,
      check: (frame) => pi30Text(frame) !== undefined,
      resendOnBadFrame: 1,
      timeoutMs: this.timeoutMs,
      signal,
    });
    return pi30Text(reply)!;
  }
}
