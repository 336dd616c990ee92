// The official Phoenix client on a test server's stream, as a browser or an integration uses it.
import { Socket, type Channel } from 'phoenix';
import { WebSocket } from 'ws';
import { within } from './deadline.js';
import { PASSWORD } from './server.js';

/**
 * A connected Phoenix socket on `serverUrl`'s stream (`/api`; the client appends `/websocket`),
 * signed in with the admin password unless `params` says otherwise. It does not reconnect
 * within a test.
 */
export function connectPhoenix(serverUrl: string, params: Record<string, string> = { password: PASSWORD }): Socket {
  const socket = new Socket(serverUrl.replace('http', 'ws') + '/api', {
    transport: WebSocket,
    params,
    vsn: '2.0.0',
    reconnectAfterMs: () => 60_000,
  });
  socket.connect();
  return socket;
}

/** The payload of the next `event` pushed on `channel`, or a rejection naming it once the deadline passes. */
export function nextEvent<T>(channel: Channel, event: string): Promise<T> {
  const next = new Promise<T>((resolve) => {
    const ref = channel.on(event, (payload) => {
      channel.off(event, ref);
      resolve(payload as T);
    });
  });
  return within(next, `"${event}" push on the ${channel.topic} channel`);
}
