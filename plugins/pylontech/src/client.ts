/**
 * Asking one pack on a Pylontech RS485 bus over a shared stream link. A reply with a wrong
 * CHKSUM or LENGTH check, or from another address, is counted by the link
 * (`stats.badFrames`) and skipped; since the pack sends nothing more, the link writes the
 * request once again (`resendOnBadFrame`).
 */
import { DeviceRefusedError } from '@heliograph/plugins-sdk';
import type { StreamLink } from '@heliograph/plugins-sdk/connections';
import { parsePylonFrame, pylonFrame, pylonFrameLength, Rtn } from './protocol.js';

const RTN_NAMES = new Map<number, string>(Object.entries(Rtn).map(([name, code]) => [code, name]));

export class PylonClient {
  constructor(
    private readonly link: StreamLink,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The INFO of the pack's reply to command `cid2`.
   *
   * @throws NoAnswerError when no valid reply came in time (a corrupted reply is asked again once).
   * @throws DeviceRefusedError when the pack answers with a return code other than 0.
   */
  async ask(address: number, cid2: number, info: string, signal?: AbortSignal): Promise<string> {
    const reply = await this.link.request(pylonFrame({ ver: 0x20, adr: address, cid1: 0x46, cid2, info }), {
      complete: pylonFrameLength,
      check: (bytes) => {
        const parsed = parsePylonFrame(bytes);
        return 'frame' in parsed && parsed.frame.adr === address;
      },
      resendOnBadFrame: 1,
      timeoutMs: this.timeoutMs,
      signal,
    });
    const { frame } = parsePylonFrame(reply) as { frame: { cid2: number; info: string } };
    if (frame.cid2 !== Rtn.ok) {
      const code = `0x${frame.cid2.toString(16).padStart(2, '0')}`;
      throw new DeviceRefusedError({ answer: `return code ${code} (${RTN_NAMES.get(frame.cid2) ?? 'unknown'})` });
    }
    return frame.info;
  }
}
