// Live values over the WebSocket (Phoenix Channels, the official client): one socket per
// page, joined to every topic, reconnecting with back-off. Screens subscribe to the store
// instead of polling, so an open tab costs a few pushes a poll interval, not two requests.

import { Socket, type Channel } from 'phoenix';
import { deviceKey, type Definition, type Metric, type Value } from '../api/types.js';

/** Waits before reconnect attempt n: quick at first, then every 15 s at most. */
export function reconnectDelayMs(tries: number): number {
  return [500, 1000, 2000, 5000, 10000][tries - 1] ?? 15000;
}

export interface LiveEntry extends Metric {
  /** When a non-null value last arrived (ms), for "last seen" on stale devices. */
  seenAt: number | null;
}

type Listener = (changed: Set<string>) => void;
type ConnectionListener = (online: boolean | null, since: number | null) => void;

export class LiveStore {
  readonly entries = new Map<string, LiveEntry>();
  /** Per device key: when any of its values last arrived non-null. */
  readonly deviceSeenAt = new Map<string, number>();
  private readonly listeners = new Set<Listener>();
  private readonly connectionListeners = new Set<ConnectionListener>();
  private socket: Socket | null = null;
  private channel: Channel | null = null;
  /** null until the first connection attempt ends. */
  online: boolean | null = null;
  /** When the connection was lost (ms), or null while online. */
  offlineSince: number | null = null;

  /** Calls `listener` with the topics that changed; at once with every topic known. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    listener(new Set(this.entries.keys()));
    return () => this.listeners.delete(listener);
  }

  onConnection(listener: ConnectionListener): () => void {
    this.connectionListeners.add(listener);
    listener(this.online, this.offlineSince);
    return () => this.connectionListeners.delete(listener);
  }

  get(topic: string): LiveEntry | undefined {
    return this.entries.get(topic);
  }

  value(topic: string): Value | undefined {
    return this.entries.get(topic)?.value;
  }

  /**
   * Seeds the store from the REST snapshot, so the first screen need not wait for the join;
   * topics the socket has already delivered keep the socket's (newer) values.
   */
  seedSnapshot(metrics: Metric[]): void {
    this.seed(metrics.filter((m) => !this.entries.has(m.topic)));
  }

  /** Definitions and values in one (the `system` event, the snapshot). */
  seed(metrics: Metric[]): void {
    this.define(metrics);
    this.update(metrics.map((m) => ({ topic: m.topic, value: m.value })));
  }

  connect(token: string): void {
    this.disconnect();
    const socket = new Socket('/api', {
      params: { token },
      vsn: '2.0.0',
      reconnectAfterMs: reconnectDelayMs,
      rejoinAfterMs: reconnectDelayMs,
    });
    const channel = socket.channel('metrics', { topics: [{ topic: '*' }] });
    channel.on('definition', (payload: { definitions?: Definition[] }) => this.define(payload.definitions ?? []));
    channel.on('data', (payload: { metrics?: Array<{ topic: string; value: Value }> }) =>
      this.update(payload.metrics ?? []),
    );
    channel.on('system', (payload: { metrics?: Metric[] }) => this.seed(payload.metrics ?? []));
    socket.onOpen(() => {
      if (channel.state === 'joined') this.setOnline(true);
    });
    socket.onClose(() => this.setOnline(false));
    socket.onError(() => this.setOnline(false));
    channel.join().receive('ok', () => this.setOnline(true));
    this.socket = socket;
    this.channel = channel;
    socket.connect();
  }

  disconnect(): void {
    this.channel?.leave();
    this.socket?.disconnect();
    this.socket = null;
    this.channel = null;
  }

  private define(definitions: Definition[]): void {
    const changed = new Set<string>();
    for (const raw of definitions) {
      const definition = withWritable(raw);
      const entry = this.entries.get(definition.topic);
      if (entry) Object.assign(entry, definition, { value: entry.value, seenAt: entry.seenAt });
      else this.entries.set(definition.topic, { ...definition, value: null, seenAt: null });
      changed.add(definition.topic);
    }
    this.emit(changed);
  }

  private update(values: Array<{ topic: string; value: Value }>): void {
    const now = Date.now();
    const changed = new Set<string>();
    for (const { topic, value } of values) {
      const entry = this.entries.get(topic);
      if (!entry) continue; // a definition always comes first; ignore what was not defined
      entry.value = value;
      if (value !== null) {
        entry.seenAt = now;
        this.deviceSeenAt.set(deviceKey(topic), now);
      }
      changed.add(topic);
    }
    this.emit(changed);
  }

  private emit(changed: Set<string>): void {
    if (changed.size === 0) return;
    for (const listener of this.listeners) listener(changed);
  }

  private setOnline(online: boolean): void {
    if (online === this.online) return;
    this.online = online;
    this.offlineSince = online ? null : Date.now();
    for (const listener of this.connectionListeners) listener(online, this.offlineSince);
  }
}

/**
 * The newer `definition` shape may carry `options` or `min`/`max` for a setting without a
 * `writable` object; the page reads either.
 */
function withWritable(definition: Definition): Definition {
  if (definition.writable || definition.group !== 'Settings') return definition;
  if (definition.options?.length) return { ...definition, writable: { options: definition.options } };
  if (typeof definition.min === 'number' && typeof definition.max === 'number')
    return { ...definition, writable: { min: definition.min, max: definition.max, step: 1 } };
  return definition;
}
