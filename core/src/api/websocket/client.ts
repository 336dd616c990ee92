import type { WebSocket } from 'ws';
import type { Identity } from '../../auth/types.js';
import type { Form } from './protocol.js';
import type { Selection } from './selection.js';
import type { ThrottleWindows } from './throttle.js';

/** Close codes the stream uses; 4000-4999 are free for applications (RFC 6455). */
export const CLOSE_IDLE = 4000;
export const CLOSE_TOO_SLOW = 4008;
export const CLOSE_GOING_AWAY = 1001;

/** One connection and its channel state. Kept small: there may be hundreds. */
export class Client {
  lastFrameAt: number;
  idleTimer: unknown = null;
  /** Set while joined to `metrics`. */
  selection: Selection<Client> | null = null;
  /** Only for sockets whose filter throttles some topic. */
  throttle: ThrottleWindows | null = null;
  closed = false;

  constructor(
    readonly ws: WebSocket,
    readonly form: Form,
    readonly who: string,
    now: number,
    /** Scope and token of the credentials the socket signed in with. */
    readonly identity: Identity = { who, scope: 'admin' },
  ) {
    this.lastFrameAt = now;
  }
}

/** What the hub lends the parts that write to joined sockets: its selections and its sends. */
export interface HubOutlets {
  /** The hub's selections, one per distinct filter. */
  selections: ReadonlyMap<string, Selection<Client>>;
  send(client: Client, frame: string | Buffer): void;
  push(client: Client, event: string, payloadJson: string): void;
}
