import { connectRaw, type RawClient } from './raw-client.js';
import type { EmulatorControls } from './server.js';

/**
 * An emulator and a {@link RawClient} connected to it, as {@link connectRawTo} returns them.
 *
 * @example
 * const { emulator, client, close } = await connectRawTo(startEmulator({ now: () => clock }));
 * after(close);
 */
export interface RawSession<E> {
  emulator: E;
  client: RawClient;
  /** Closes the client, then the emulator. */
  close: () => Promise<void>;
}

/**
 * Waits for `emulator` to start and connects a {@link RawClient} to its port on loopback;
 * `close` ends both, and a failed connection closes the emulator before it rejects.
 *
 * @example
 * const { emulator: rtu, client, close } = await connectRawTo(startEmulator({ transport: 'rtu-over-tcp' }));
 * t.after(close);
 */
export async function connectRawTo<E extends { readonly port: number; close(): Promise<void> }>(
  emulator: E | Promise<E>,
): Promise<RawSession<E>> {
  const started = await emulator;
  let client: RawClient;
  try {
    client = await connectRaw({ port: started.port });
  } catch (err) {
    await started.close();
    throw err;
  }
  return {
    emulator: started,
    client,
    close: async () => {
      client.close();
      await started.close();
    },
  };
}

/**
 * Sends `request` while `emulator` is silenced and turns silence off once the emulator has
 * read it, so the request is known to have gone unanswered: a test then checks that the
 * next reply belongs to the next request.
 *
 * @example
 * await sendUnanswered(emulator, client, pi30Frame('QPIGS'));
 * assert.equal(await ask('QMOD'), '(B', 'the silenced QPIGS got no answer');
 */
export async function sendUnanswered(
  emulator: Pick<EmulatorControls, 'silence' | 'nextRequest'>,
  client: Pick<RawClient, 'send'>,
  request: Buffer,
): Promise<void> {
  emulator.silence(true);
  const seen = emulator.nextRequest();
  client.send(request);
  await seen;
  emulator.silence(false);
}
