/**
 * PI30 framing, the same both ways: ASCII text, a CRC16-XMODEM (big-endian) and a CR. A CRC
 * byte equal to `(`, CR or LF is sent incremented by one, so neither side can mistake it
 * for the start or end of a frame.
 */
import { crc16xmodem } from 'crc';

const CR = 0x0d;
/** Bytes a CRC byte must not be on the wire: `(`, CR, LF. */
export const RESERVED_CRC_BYTES: ReadonlySet<number> = new Set([0x28, 0x0d, 0x0a]);

/** The two CRC bytes of `text` as they go on the wire (adjusted). */
export function pi30Crc(text: Buffer): Buffer {
  const crc = crc16xmodem(text);
  return Buffer.from([crc >> 8, crc & 0xff].map((byte) => (RESERVED_CRC_BYTES.has(byte) ? byte + 1 : byte)));
}

/**
 * A command or a reply on the wire.
 *
 * @example
 * pi30Frame('QPIGS'); // <51 50 49 47 53 b7 a9 0d>
 */
export function pi30Frame(text: string): Buffer {
  const body = Buffer.from(text, 'latin1');
  return Buffer.concat([body, pi30Crc(body), Buffer.from([CR])]);
}

/**
 * The text of a frame (CR included) whose CRC is right, or `undefined`.
 *
 * @example
 * pi30Text(Buffer.from('5150494753b7a90d', 'hex')); // 'QPIGS'
 */
export function pi30Text(frame: Buffer): string | undefined {
  if (frame.length < 4 || frame[frame.length - 1] !== CR) return undefined;
  const body = frame.subarray(0, -3);
  return pi30Crc(body).equals(frame.subarray(-3, -1)) ? body.toString('latin1') : undefined;
}

/** The length of the frame at the start of `buf` (up to its CR), or -1. */
export function pi30FrameLength(buf: Buffer): number {
  const end = buf.indexOf(CR);
  return end < 0 ? -1 : end + 1;
}
