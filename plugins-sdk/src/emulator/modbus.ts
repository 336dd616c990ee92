/**
 * The server side of the Modbus application layer, shared by every Modbus emulator and
 * transport: a device's registers behind function codes 03, 04, 06 and 16, with the
 * standard exception replies.
 */

/** Modbus exception codes a device answers with. */
export const ModbusExceptionCode = {
  illegalFunction: 0x01,
  illegalDataAddress: 0x02,
  illegalDataValue: 0x03,
  gatewayTargetFailed: 0x0b,
} as const;

/**
 * Thrown by a {@link ModbusDevice} to make it answer with a Modbus exception.
 *
 * @example
 * if (value > 100) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue, message: 'SOC above 100' });
 */
export class ModbusException extends Error {
  readonly code: number;
  constructor(options: { code: number; message?: string }) {
    super(options.message ?? `Modbus exception ${options.code}`);
    this.name = 'ModbusException';
    this.code = options.code;
  }
}

/**
 * One emulated Modbus device: its registers as the wire sees them (unsigned 16-bit words).
 * Throw {@link ModbusException} for a refused request.
 *
 * @example
 * const device: ModbusDevice = {
 *   readHoldingRegisters: ({ address, count }) => Array.from({ length: count }, (_, i) => address + i),
 *   writeRegisters: () => {
 *     throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
 *   },
 * };
 */
export interface ModbusDevice {
  readHoldingRegisters(request: { address: number; count: number }): number[];
  /** Function code 04; devices without input registers answer "illegal function". */
  readInputRegisters?(request: { address: number; count: number }): number[];
  /** Function codes 06 (one value) and 16. */
  writeRegisters(request: { address: number; values: number[] }): void;
}

/**
 * Answers one request PDU (function code and data, without unit id or CRC) with the reply
 * PDU, an exception reply when the device refuses.
 *
 * @example
 * answerModbusPdu(device, Buffer.from([0x03, 0x00, 0xb8, 0x00, 0x01])); // <03 02 00 4b>: SOC 75 %
 */
export function answerModbusPdu(device: ModbusDevice, pdu: Buffer): Buffer {
  const fc = pdu[0] ?? 0;
  try {
    return answerOrThrow(device, pdu, fc);
  } catch (err) {
    const code = err instanceof ModbusException ? err.code : ModbusExceptionCode.illegalDataValue;
    return Buffer.from([fc | 0x80, code]);
  }
}

function answerOrThrow(device: ModbusDevice, pdu: Buffer, fc: number): Buffer {
  const malformed = () => new ModbusException({ code: ModbusExceptionCode.illegalDataValue, message: 'malformed' });
  switch (fc) {
    case 0x03:
    case 0x04: {
      if (pdu.length !== 5) throw malformed();
      const address = pdu.readUInt16BE(1);
      const count = pdu.readUInt16BE(3);
      if (count < 1 || count > 125) throw malformed();
      const read = fc === 0x03 ? device.readHoldingRegisters.bind(device) : device.readInputRegisters?.bind(device);
      if (!read) throw new ModbusException({ code: ModbusExceptionCode.illegalFunction });
      const words = read({ address, count });
      const reply = Buffer.alloc(2 + 2 * count);
      reply[0] = fc;
      reply[1] = 2 * count;
      words.forEach((word, i) => reply.writeUInt16BE(word & 0xffff, 2 + 2 * i));
      return reply;
    }
    case 0x06: {
      if (pdu.length !== 5) throw malformed();
      device.writeRegisters({ address: pdu.readUInt16BE(1), values: [pdu.readUInt16BE(3)] });
      return Buffer.from(pdu);
    }
    case 0x10: {
      const count = pdu.length >= 6 ? pdu.readUInt16BE(3) : 0;
      if (count < 1 || count > 123 || pdu[5] !== 2 * count || pdu.length !== 6 + 2 * count) throw malformed();
      const values = Array.from({ length: count }, (_, i) => pdu.readUInt16BE(6 + 2 * i));
      device.writeRegisters({ address: pdu.readUInt16BE(1), values });
      return Buffer.from(pdu.subarray(0, 5));
    }
    default:
      throw new ModbusException({ code: ModbusExceptionCode.illegalFunction });
  }
}

/**
 * A signed number as the 16-bit word a register holds (two's complement).
 *
 * @example
 * toWord(-250); // 65286
 */
export function toWord(value: number): number {
  return Math.round(value) & 0xffff;
}

/**
 * Text as `count` registers, two ASCII characters per register, padded with NULs.
 *
 * @example
 * textWords('SunS', 2); // [0x5375, 0x6e53]
 */
export function textWords(text: string, count: number): number[] {
  const bytes = Buffer.alloc(2 * count);
  bytes.write(text.slice(0, 2 * count), 'ascii');
  return Array.from({ length: count }, (_, i) => bytes.readUInt16BE(2 * i));
}

/**
 * A 32-bit number as two registers, high word first.
 *
 * @example
 * wordsOf32(70000); // [1, 4464]
 */
export function wordsOf32(value: number): [number, number] {
  const v = Math.round(value) >>> 0;
  return [v >>> 16, v & 0xffff];
}
