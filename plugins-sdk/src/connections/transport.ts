/*
 * Opens the byte stream under a link: a TCP socket (node:net), a connected UDP socket
 * (node:dgram; each datagram a chunk) or a serial port (serialport).
 * The promise settles once the stream is open; what happens after that is the link's job.
 */
import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';
import { Duplex } from 'node:stream';
import { SerialPortStream, type OpenOptions } from '@serialport/stream';
import { failOnHangup } from './serial-hangup.js';
import type { TransportSpec } from './spec.js';

/** A serialport binding: the native one, or `MockBinding` from `@serialport/binding-mock` in tests. */
export type SerialBinding = OpenOptions['binding'];

/** A TCP connect that has not completed after this long is given up (a host that drops SYNs). */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Opens `spec`. `binding` replaces the native serial binding (tests pass
 * `@serialport/binding-mock`); without it the `serialport` package's own binding is loaded
 * on first use, so TCP-only drivers never load native code.
 */
export async function openTransport(spec: TransportSpec, binding?: SerialBinding): Promise<Duplex> {
  if (spec.type === 'tcp') return openTcp(spec.host, spec.port);
  if (spec.type === 'udp') return openUdp(spec.host, spec.port);
  const portBinding = binding ?? failOnHangup((await import('serialport')).SerialPort.binding);
  const port = new SerialPortStream({
    binding: portBinding,
    path: spec.path,
    baudRate: spec.baudRate,
    dataBits: spec.dataBits,
    parity: spec.parity,
    stopBits: spec.stopBits,
    autoOpen: false,
  });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  return port;
}

/**
 * A UDP "connection": a socket connected to host:port, as a byte stream whose chunks are the
 * datagrams received; each write is one datagram.
 */
function openUdp(host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
    const stream = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        socket.send(chunk, (err) => done(err ?? null));
      },
      destroy(err, done) {
        socket.close();
        done(err);
      },
    });
    socket.on('message', (message) => stream.push(message));
    socket.on('error', (err) => stream.destroy(err));
    socket.once('error', reject);
    socket.connect(port, host, () => {
      socket.off('error', reject);
      resolve(stream);
    });
  });
}

function openTcp(host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(
      () => socket.destroy(new Error(`connect timed out after ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', reject);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
