/**
 * An emulator listening on UDP: each datagram is one request, each reply one datagram back
 * to its sender, with the same test controls as the TCP server (silence, corrupt replies).
 */
import { createSocket } from 'node:dgram';
import { answeringControls, type FrameProtocol, type RunningEmulator } from './server.js';

/**
 * Listens on UDP and answers each datagram through `protocol` (its `frameLength` is not
 * used: a datagram is a whole request).
 *
 * @example
 * const emulator = await startUdpEmulatorServer({ protocol: modbusRtuProtocol(units), port: 0 });
 */
export async function startUdpEmulatorServer(options: {
  protocol: FrameProtocol;
  host?: string;
  port?: number;
}): Promise<RunningEmulator> {
  const { protocol } = options;
  const host = options.host ?? '127.0.0.1';
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  const { reply, controls } = answeringControls(protocol);
  socket.on('message', (request, from) => {
    const answer = reply(request);
    if (answer) socket.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port ?? 0, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const address = socket.address();
  return {
    host: address.address,
    port: address.port,
    ...controls,
    close() {
      return new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
