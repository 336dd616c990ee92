/*
 * Sharing: every user in the process that opens the same TCP host:port or serial path gets
 * a handle on one Link, so one bus or gateway sees one request at a time. The link closes
 * when the last handle is released.
 */
import type { EventEmitter } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError } from '../errors.js';
import type { Disposer } from '../context.js';
import { Link, type LinkEvents, type LinkOptions, type LinkRequestOptions, type LinkStats } from './link.js';
import { connectionSchema, describeTransport, transportKey, type ConnectionInput, type TransportSpec } from './spec.js';

/**
 * A handle on a shared byte link. Requests of every handle on the same link are queued
 * together.
 *
 * @example
 * const link = openStreamLink({ type: 'tcp', host: '192.168.1.60', port: 8899 });
 * const reply = await link.request(Buffer.from('QPIGS\r'), { complete: (b) => b.indexOf(0x0d) + 1 || -1, timeoutMs: 1500 });
 * link.release();
 */
export interface StreamLink {
  /**
   * Sends `frame` when the link is free and resolves with the reply `complete` delimits.
   * Rejects with NoAnswerError on timeout or a lost connection, with `signal.reason` on
   * abort.
   */
  request(frame: Buffer, options: LinkRequestOptions): Promise<Buffer>;
  /** Counters of the physical link (shared by every handle on it). */
  readonly stats: LinkStats;
  /** Whether the link is open now. */
  readonly connected: boolean;
  /** `host:port` or the serial path, for messages. */
  readonly description: string;
  /** Listens for `connect` / `disconnect` of the physical link. */
  on<E extends keyof LinkEvents>(event: E, listener: (...args: LinkEvents[E]) => void): Disposer;
  /** Gives the handle back; the link closes when its last handle is released. Idempotent. */
  release(): void;
}

const shared = new Map<string, { link: Link; users: number }>();

/** A handle on the shared link to `spec`, opening it if nobody has. */
export function acquireLink(spec: TransportSpec, options: LinkOptions = {}): StreamLink {
  const key = transportKey(spec);
  let entry = shared.get(key);
  if (entry && !isDeepStrictEqual(entry.link.spec, spec)) {
    throw new ConfigError(
      `${describeTransport(spec)} is already open with other settings (${JSON.stringify(entry.link.spec)}); ` +
        'give every device on this port the same connection settings',
    );
  }
  if (!entry) {
    entry = { link: new Link(spec, options), users: 0 };
    shared.set(key, entry);
  }
  entry.users++;
  const { link } = entry;
  const current = entry;
  let released = false;
  const unsubscribes = new Set<Disposer>();
  return {
    request: (frame, requestOptions) =>
      released
        ? Promise.reject(new Error(`${link.description}: handle released`))
        : link.request(frame, requestOptions),
    get stats() {
      return link.stats;
    },
    get connected() {
      return link.connected;
    },
    description: link.description,
    on(event, listener) {
      // The typed emitter cannot relate a generic event to its listener; the signature above does.
      const emitter: EventEmitter = link;
      const untyped = listener as (...args: unknown[]) => void;
      emitter.on(event, untyped);
      const off = () => {
        emitter.off(event, untyped);
        unsubscribes.delete(off);
      };
      unsubscribes.add(off);
      return off;
    },
    release() {
      if (released) return;
      released = true;
      for (const off of unsubscribes) off();
      if (--current.users > 0) return;
      shared.delete(key);
      link.close();
    },
  };
}

/**
 * Opens (or joins) the link to a TCP endpoint or serial port, for ASCII or byte protocols
 * (Voltronic PI30, Pylontech RS485). Everyone in the process that opens the same host:port
 * or serial path shares one link and its queue.
 *
 * @throws ConfigError when the spec is invalid, or a serial port is already open with other settings.
 * @example
 * const link = openStreamLink({ type: 'serial', path: '/dev/ttyUSB0', baudRate: 2400 });
 * link.on('disconnect', (reason) => ctx.status.error({ message: reason }));
 * ctx.scheduler.every({ name: 'poll', intervalMs: 5000, run: async ({ signal }) => {
 *   const reply = await link.request(frame, { complete: untilCr, timeoutMs: 1500, signal });
 * } });
 * return () => link.release();
 */
export function openStreamLink(
  spec: Extract<ConnectionInput, { type: 'tcp' | 'serial' }>,
  options: LinkOptions = {},
): StreamLink {
  const parsed = connectionSchema.safeParse(spec);
  if (!parsed.success) throw new ConfigError(`connection: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  const transport = parsed.data;
  if (transport.type !== 'tcp' && transport.type !== 'serial') {
    throw new ConfigError(`connection type "${transport.type}" is a Modbus framing; use openModbus`);
  }
  return acquireLink(transport, options);
}
