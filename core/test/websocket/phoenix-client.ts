import { Socket, type Channel, type Push } from 'phoenix';
import { WebSocket } from 'ws';
import { PASSWORD, type StreamServer } from './harness.js';
import type { Payload } from './raw-client.js';

/** The official Phoenix client, as a browser or an integration would use it (Node needs ws). */
export function phoenixSocket(server: StreamServer): Socket {
  const socket = new Socket(server.phoenixEndpoint, {
    transport: WebSocket,
    params: { password: PASSWORD },
    vsn: '2.0.0',
    reconnectAfterMs: () => 20,
    rejoinAfterMs: () => 20,
  });
  socket.connect();
  return socket;
}

/** Payloads of a channel's events, queued per event so a test can await them in order. */
export class ChannelInbox {
  private readonly queues = new Map<string, unknown[]>();
  private readonly waiters = new Map<string, Array<(payload: unknown) => void>>();

  constructor(channel: Channel, events: readonly string[]) {
    for (const event of events) {
      this.queues.set(event, []);
      this.waiters.set(event, []);
      channel.on(event, (payload) => {
        const waiter = this.waiters.get(event)!.shift();
        if (waiter) waiter(payload);
        else this.queues.get(event)!.push(payload);
      });
    }
  }

  /** The next payload of event, read as a Payload unless the test says what it expects. */
  next<T = Payload>(event: string): Promise<T> {
    const queued = this.queues.get(event)!;
    if (queued.length > 0) return Promise.resolve(queued.shift() as T);
    return new Promise((resolve) => this.waiters.get(event)!.push((payload) => resolve(payload as T)));
  }

  count(event: string): number {
    return this.queues.get(event)!.length;
  }
}

/** Joins and resolves with the reply's status and response. */
export function joinChannel(channel: Channel): Promise<{ status: string; response: unknown }> {
  return pushAndWait(channel.join());
}

/** Pushes and resolves with the reply's status and response, the response read as R. */
export function pushAndWait<R = unknown>(push: Push): Promise<{ status: string; response: R }> {
  return new Promise((resolve) => {
    push
      .receive('ok', (response: unknown) => resolve({ status: 'ok', response: response as R }))
      .receive('error', (response: unknown) => resolve({ status: 'error', response: response as R }))
      .receive('timeout', () => resolve({ status: 'timeout', response: null as R }));
  });
}
