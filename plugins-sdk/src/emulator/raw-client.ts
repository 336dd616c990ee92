import { connect, type Socket } from 'node:net';

/**
 * A bare TCP client for emulator tests: sends bytes as given and reads replies framed by the
 * test, so a test checks the wire format itself rather than a driver's reading of it.
 *
 * @example
 * const client = await connectRaw({ port: emulator.port });
 * client.send(Buffer.from('5150494753b7a90d', 'hex'));
 * const reply = await client.read((buf) => buf.indexOf(0x0d) + 1 || -1);
 * client.close();
 */
export interface RawClient {
  send(bytes: Buffer): void;
  /**
   * The next reply: `complete` returns its length at the start of the bytes received, or
   * -1 for "need more". Rejects after `timeoutMs` (default 5000) so a test never hangs.
   */
  read(complete: (buf: Buffer) => number, timeoutMs?: number): Promise<Buffer>;
  close(): void;
}

/**
 * Connects a {@link RawClient} to an emulator.
 *
 * @example
 * const client = await connectRaw({ host: '127.0.0.1', port: 502 });
 */
export async function connectRaw(options: { host?: string; port: number }): Promise<RawClient> {
  const socket: Socket = connect(options.port, options.host ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  socket.on('data', (chunk) => {
    received = Buffer.concat([received, chunk]);
    wake?.();
  });
  return {
    send: (bytes) => socket.write(bytes),
    read(complete, timeoutMs = 5000) {
      return new Promise<Buffer>((resolve, reject) => {
        const take = () => {
          const length = received.length > 0 ? complete(received) : -1;
          if (length < 0) return;
          const reply = received.subarray(0, length);
          received = received.subarray(length);
          clearTimeout(timer);
          wake = undefined;
          resolve(reply);
        };
        const timer = setTimeout(() => {
          wake = undefined;
          reject(new Error(`no complete reply within ${timeoutMs} ms (got <${received.toString('hex')}>)`));
        }, timeoutMs);
        wake = take;
        take();
      });
    },
    close: () => socket.destroy(),
  };
}

/**
 * The length of the Modbus TCP frame at the start of `buf` (from its MBAP header), or -1.
 *
 * @example
 * const reply = await client.read(modbusTcpLength);
 */
export function modbusTcpLength(buf: Buffer): number {
  if (buf.length < 6) return -1;
  const length = 6 + buf.readUInt16BE(4);
  return buf.length >= length ? length : -1;
}

/**
 * Reads holding registers over Modbus TCP with a {@link RawClient}, checking the reply's
 * header against the request. A Modbus exception reply rejects with `exception <code>`.
 *
 * @example
 * const [marker1, marker2] = await readHoldingOverTcp(client, { transaction: 1, address: 40000, count: 2 });
 */
export async function readHoldingOverTcp(
  client: RawClient,
  request: { transaction: number; unitId?: number; address: number; count: number },
): Promise<number[]> {
  const frame = Buffer.alloc(12);
  frame.writeUInt16BE(request.transaction, 0);
  frame.writeUInt16BE(6, 4);
  frame[6] = request.unitId ?? 1;
  frame[7] = 0x03;
  frame.writeUInt16BE(request.address, 8);
  frame.writeUInt16BE(request.count, 10);
  client.send(frame);
  const reply = await client.read(modbusTcpLength);
  if (reply.readUInt16BE(0) !== request.transaction || reply.readUInt16BE(2) !== 0 || reply[6] !== frame[6])
    throw new Error(`reply header does not match the request: <${reply.toString('hex')}>`);
  if (reply[7] === 0x83) throw new Error(`exception ${reply[8]}`);
  if (reply[7] !== 0x03 || reply[8] !== 2 * request.count || reply.length !== 9 + 2 * request.count)
    throw new Error(`malformed reply: <${reply.toString('hex')}>`);
  return Array.from({ length: request.count }, (_, i) => reply.readUInt16BE(9 + 2 * i));
}
