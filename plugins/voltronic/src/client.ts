/**
 * Asking a PI30 device over a shared stream link: one command, one CRC-checked reply. A
 * reply whose CRC is wrong is counted by the link (`stats.badFrames`) and skipped; since the
 * device sends nothing more, the command is then asked once again.
 */
import { DeviceRefusedError, NoAnswerError } from '@heliograph/plugins-sdk';
import type { StreamLink } from '@heliograph/plugins-sdk/connections';
import { pi30Frame, pi30FrameLength, pi30Text } from './pi30.js';

export class Pi30Client {
  constructor(
    private readonly link: StreamLink,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The reply text to `command` (starting with `(`).
   *
   * @throws NoAnswerError when no valid reply came in time, twice.
   */
  async ask(command: string, signal?: AbortSignal): Promise<string> {
    const badBefore = this.link.stats.badFrames;
    try {
      return await this.once(command, signal);
    } catch (error) {
      if (!(error instanceof NoAnswerError) || this.link.stats.badFrames === badBefore) throw error;
      return await this.once(command, signal);
    }
  }

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

  private async once(command: string, signal?: AbortSignal): Promise<string> {
    const reply = await this.link.request(pi30Frame(command), {
      complete: pi30FrameLength,
      check: (frame) => pi30Text(frame) !== undefined,
      timeoutMs: this.timeoutMs,
      signal,
    });
    return pi30Text(reply)!;
  }
}
