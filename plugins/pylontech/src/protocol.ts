/**
 * Framing of the Pylontech RS485 ASCII protocol (the same both ways):
 * `~ VER ADR CID1 CID2 LENGTH INFO CHKSUM CR`, every field ASCII hex. In a reply the CID2
 * place holds the return code (RTN). LENGTH is a 4-bit check over a 12-bit INFO length (in
 * characters); CHKSUM is the two's complement of the sum of every character between `~`
 * and CHKSUM.
 */

/** Return codes a battery answers with in the CID2 place. */
export const Rtn = {
  ok: 0x00,
  badVersion: 0x01,
  badChecksum: 0x02,
  badLengthChecksum: 0x03,
  badCid2: 0x04,
  badFormat: 0x05,
  badData: 0x06,
} as const;

const hex = (value: number, digits: number) => value.toString(16).toUpperCase().padStart(digits, '0');

/**
 * LENGTH for an INFO of `infoChars` characters.
 *
 * @example
 * lengthField(2); // 'E002'
 */
export function lengthField(infoChars: number): string {
  const sum = (infoChars & 0xf) + ((infoChars >> 4) & 0xf) + ((infoChars >> 8) & 0xf);
  return hex((((~sum + 1) & 0xf) << 12) | infoChars, 4);
}

/**
 * CHKSUM of the characters between `~` and CHKSUM.
 *
 * @example
 * checksum('20024642E00202'); // 'FD33'
 */
export function checksum(text: string): string {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
  return hex((~sum + 1) & 0xffff, 4);
}

/** One frame's fields; `cid2` holds the RTN code in a reply. */
export interface PylonFrame {
  ver: number;
  adr: number;
  cid1: number;
  cid2: number;
  /** INFO as its ASCII hex text. */
  info: string;
}

/**
 * A frame on the wire.
 *
 * @example
 * pylonFrame({ ver: 0x20, adr: 2, cid1: 0x46, cid2: 0x42, info: '02' }); // '~20024642E00202FD33\r'
 */
export function pylonFrame(frame: PylonFrame): Buffer {
  const body =
    hex(frame.ver, 2) +
    hex(frame.adr, 2) +
    hex(frame.cid1, 2) +
    hex(frame.cid2, 2) +
    lengthField(frame.info.length) +
    frame.info;
  return Buffer.from(`~${body}${checksum(body)}\r`, 'ascii');
}

/**
 * Reads a frame (from `~` to CR), or says what is wrong with it as the RTN code a battery
 * would answer.
 *
 * @example
 * parsePylonFrame(Buffer.from('~20024642E00202FD33\r')); // { frame: { ver: 0x20, adr: 2, cid1: 0x46, cid2: 0x42, info: '02' } }
 */
export function parsePylonFrame(bytes: Buffer): { frame: PylonFrame } | { error: number } {
  const text = bytes.toString('ascii');
  if (!/^~[0-9A-F]{16,}\r$/.test(text)) return { error: Rtn.badFormat };
  const body = text.slice(1, -5);
  if (checksum(body) !== text.slice(-5, -1)) return { error: Rtn.badChecksum };
  const length = parseInt(body.slice(8, 12), 16);
  const info = body.slice(12);
  if (lengthField(length & 0xfff) !== body.slice(8, 12) || (length & 0xfff) !== info.length)
    return { error: Rtn.badLengthChecksum };
  const byte = (at: number) => parseInt(body.slice(at, at + 2), 16);
  return { frame: { ver: byte(0), adr: byte(2), cid1: byte(4), cid2: byte(6), info } };
}

/** The length of the frame at the start of `buf` (through its CR), -1 if incomplete; bytes before a `~` are garbage. */
export function pylonFrameLength(buf: Buffer): number {
  const start = buf.indexOf(0x7e);
  if (start !== 0) return start < 0 ? buf.length : start;
  const end = buf.indexOf(0x0d);
  return end < 0 ? -1 : end + 1;
}

/** Numbers as INFO hex: `bytes` bytes each, two's complement for negatives. */
export function infoHex(values: number[], bytes = 2): string {
  const range = 2 ** (8 * bytes);
  return values.map((v) => hex(((Math.round(v) % range) + range) % range, 2 * bytes)).join('');
}

/** Text as INFO hex, padded with NULs to `bytes`. */
export function infoText(text: string, bytes: number): string {
  return Buffer.from(text.padEnd(bytes, '\0').slice(0, bytes), 'ascii').toString('hex').toUpperCase();
}
