/*
 * The native serial binding with one fix: a port that has hung up fails its read, which
 * closes the port, instead of being read again forever.
 *
 * Linux answers every read of a tty that has hung up (a USB adapter unplugged, the far end
 * of a pty gone) with 0 bytes at once, or with EIO, and a wait for it to be readable fails.
 * @serialport/bindings-cpp 13 reads again on 0 bytes, and again, each time through a new
 * promise, so the process burns a core and its heap grows until it dies
 * (serialport/bindings-cpp issue 162, still open). Here the read fails instead, and
 * @serialport/stream takes a failed read as a disconnect: it closes the port and passes the
 * error to its 'close' event, where the link reports it and opens the port again with its
 * backoff.
 */
import { read } from 'node:fs';
import { promisify } from 'node:util';
import type { EventEmitter } from 'node:events';
import type { OpenOptions } from '@serialport/stream';

const readAsync = promisify(read);

type SerialBinding = OpenOptions['binding'];

/** What a unix port binding (Linux, macOS) of @serialport/bindings-cpp carries. */
interface UnixPort {
  fd: number | null;
  readonly isOpen: boolean;
  readonly poller: EventEmitter & { once(event: 'readable', callback: (err: Error | null) => void): unknown };
  read(buffer: Buffer, offset: number, length: number): Promise<{ buffer: Buffer; bytesRead: number }>;
}

/** `binding` with each opened port's `read` failing once the port has hung up (see above). */
export function failOnHangup(binding: SerialBinding): SerialBinding {
  return {
    list: () => binding.list(),
    async open(options) {
      const port = await binding.open(options);
      if (isUnixPort(port)) port.read = (buffer, offset, length) => readOnce(port, buffer, offset, length);
      return port;
    },
  };
}

function isUnixPort(port: object): port is UnixPort {
  return 'fd' in port && 'poller' in port;
}

/** One read: the bytes there are, waiting for the port to be readable first. */
async function readOnce(
  port: UnixPort,
  buffer: Buffer,
  offset: number,
  length: number,
): Promise<{ buffer: Buffer; bytesRead: number }> {
  for (;;) {
    if (!port.isOpen || port.fd === null) throw canceled();
    let bytesRead: number;
    try {
      ({ bytesRead } = await readAsync(port.fd, buffer, offset, length, null));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A removed device may answer ENXIO, a pty whose other side closed EIO: a hang-up too.
      if (code === 'EIO' || code === 'ENXIO') throw hungUp();
      if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK' && code !== 'EINTR') throw error;
      if (!port.isOpen) throw canceled();
      // libuv reports a poll that ends in POLLERR (a hang-up while waiting) as EBADF.
      await new Promise<void>((resolve, reject) =>
        port.poller.once('readable', (err) => (!err ? resolve() : reject(isCanceled(err) ? err : hungUp()))),
      );
      continue;
    }
    if (bytesRead === 0) throw hungUp();
    return { buffer, bytesRead };
  }
}

function hungUp(): Error {
  return Object.assign(new Error('the serial port hung up (unplugged, or its far end closed)'), { disconnect: true });
}

function isCanceled(error: Error): boolean {
  return (error as { canceled?: boolean }).canceled === true;
}

/** The error @serialport/stream takes as "the port was closed on purpose": it stops reading. */
function canceled(): Error {
  return Object.assign(new Error('Port is not open'), { canceled: true });
}
