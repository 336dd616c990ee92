/*
 * The native serial binding with one fix: a read that returns end of file ends the port's
 * stream instead of reading again.
 *
 * Linux answers every read of a tty that has hung up (a USB adapter unplugged, the far end
 * of a pty gone) with 0 bytes at once. @serialport/bindings-cpp 13 reads again on 0 bytes,
 * and again, each time through a new promise, so the process burns a core and its heap
 * grows until it dies (serialport/bindings-cpp issue 162, still open). Here 0 bytes is
 * returned to @serialport/stream, which ends the stream on it; `openTransport` closes the
 * port then, and the link reports the hang-up and opens the port again with its backoff.
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

/** `binding` with each opened port's `read` returning 0 bytes at end of file (see above). */
export function endOnHangup(binding: SerialBinding): SerialBinding {
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

/** One read: the bytes there are, waiting for the port to be readable first; 0 at end of file. */
async function readOnce(
  port: UnixPort,
  buffer: Buffer,
  offset: number,
  length: number,
): Promise<{ buffer: Buffer; bytesRead: number }> {
  for (;;) {
    if (!port.isOpen || port.fd === null) throw canceled();
    try {
      const { bytesRead } = await readAsync(port.fd, buffer, offset, length, null);
      return { buffer, bytesRead };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK' && code !== 'EINTR') throw error;
      if (!port.isOpen) throw canceled();
      await new Promise<void>((resolve, reject) =>
        port.poller.once('readable', (err) => (err ? reject(err) : resolve())),
      );
    }
  }
}

/** The error @serialport/stream takes as "the port was closed on purpose": it stops reading. */
function canceled(): Error {
  return Object.assign(new Error('Port is not open'), { canceled: true });
}
