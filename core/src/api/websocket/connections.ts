import type { WebSocket } from 'ws';
import type { Identity } from '../../auth/types.js';
import type { Clock } from '../../clock.js';
import { createLogger, errorMessage } from '../../log.js';
import { Client, CLOSE_GOING_AWAY, CLOSE_IDLE, CLOSE_TOO_SLOW } from './client.js';
import { decodeFrame, encodePush, encodeReply, type Form, type InboundFrame, type ReplyTarget } from './protocol.js';
import type { Timers } from './timers.js';

const log = createLogger('websocket');

const TEXT = { binary: false } as const;

export interface ConnectionsOptions {
  clock: Clock;
  timers: Timers;
  /** A socket from which no frame arrived for this long is closed. */
  idleTimeoutMs: number;
  /** Bytes a socket may have queued before it counts as too slow and is closed. */
  maxBufferedBytes: number;
  /** A decoded frame with its reply target; throwing answers "internal error". */
  onFrame(client: Client, frame: InboundFrame): void;
  /** A socket is gone (closed by either side): drop its channel state. */
  onGone(client: Client): void;
}

/**
 * The open sockets: frames in (decoded, errors answered), frames out (bounded by the send
 * queue), idle and slow sockets closed, and all of them closed on shutdown.
 */
export class Connections {
  private readonly clients = new Set<Client>();

  constructor(private readonly options: ConnectionsOptions) {}

  get count(): number {
    return this.clients.size;
  }

  connect(ws: WebSocket, form: Form, who: string, identity?: Identity): Client {
    const client = new Client(ws, form, who, this.options.clock.now(), identity);
    this.clients.add(client);
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onMessage(client, data, isBinary));
    ws.on('close', () => this.forget(client));
    ws.on('error', (err) => log.debug('socket error', { who, err: errorMessage(err) }));
    this.armIdle(client, this.options.idleTimeoutMs);
    return client;
  }

  reply(client: Client, target: ReplyTarget, status: 'ok' | 'error', response: Record<string, unknown>): void {
    this.send(client, encodeReply(client.form, target, status, response));
  }

  /** A push to one socket. */
  push(client: Client, event: string, payloadJson: string): void {
    this.send(client, encodePush(client.form, event, payloadJson));
  }

  /**
   * Writes a frame unless the socket is too far behind. A socket whose queue outgrew the
   * bound is closed (its close frame waits behind the queue; ws destroys it if it never
   * drains), so one stalled reader costs at most the bound and never delays the others.
   */
  send(client: Client, frame: string | Buffer): void {
    if (client.closed) return;
    if (client.ws.bufferedAmount > this.options.maxBufferedBytes) {
      log.warn('closing a WebSocket client that does not keep up', {
        who: client.who,
        queued: client.ws.bufferedAmount,
      });
      this.close(client, CLOSE_TOO_SLOW, 'too slow: send queue full');
      return;
    }
    if (client.ws.readyState !== client.ws.OPEN) return;
    client.ws.send(frame, TEXT);
  }

  close(client: Client, code: number, reason: string): void {
    if (client.closed) return;
    this.forget(client);
    client.ws.close(code, reason);
  }

  /** Closes every socket (going away); sockets that do not answer in `graceMs` are cut. */
  async closeAll(graceMs = 1000): Promise<void> {
    const sockets = [...this.clients].map((c) => c.ws);
    for (const client of [...this.clients]) this.close(client, CLOSE_GOING_AWAY, 'server shutting down');
    await Promise.all(
      sockets.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            const force = setTimeout(() => ws.terminate(), graceMs);
            ws.once('close', () => {
              clearTimeout(force);
              resolve();
            });
          }),
      ),
    );
  }

  private onMessage(client: Client, data: Buffer, isBinary: boolean): void {
    client.lastFrameAt = this.options.clock.now();
    if (client.closed) return;
    if (isBinary) {
      log.debug('ignoring a binary frame', { who: client.who });
      return;
    }
    const decoded = decodeFrame(client.form, data.toString('utf8'));
    if (!decoded.ok) {
      if (decoded.target) this.reply(client, decoded.target, 'error', { reason: decoded.reason });
      else log.debug(`ignoring a frame without a ref: ${decoded.reason}`, { who: client.who });
      return;
    }
    try {
      this.options.onFrame(client, decoded.frame);
    } catch (err) {
      log.error('handling a WebSocket frame failed', { who: client.who, err });
      const { joinRef, ref, topic } = decoded.frame;
      if (ref !== null)
        this.reply(client, { joinRef, ref, topic }, 'error', { reason: 'internal error; see the server log' });
    }
  }

  private forget(client: Client): void {
    if (client.closed) return;
    client.closed = true;
    this.clients.delete(client);
    this.options.onGone(client);
    this.options.timers.clearTimeout(client.idleTimer);
  }

  private armIdle(client: Client, delayMs: number): void {
    const { clock, timers, idleTimeoutMs } = this.options;
    client.idleTimer = timers.setTimeout(() => {
      // One timer per socket, re-armed lazily: frames only stamp lastFrameAt.
      const idleMs = clock.now() - client.lastFrameAt;
      if (idleMs >= idleTimeoutMs) {
        this.close(
          client,
          CLOSE_IDLE,
          `idle: no frame for ${Math.round(idleTimeoutMs / 1000)} s; send a heartbeat every 30 s`,
        );
      } else {
        this.armIdle(client, idleTimeoutMs - idleMs);
      }
    }, delayMs);
  }
}
