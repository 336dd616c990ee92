import type { WebSocket } from 'ws';
import type { Identity } from '../../auth/types.js';
import type { Clock } from '../../clock.js';
import type { SystemInfo } from '../../system/info.js';
import type { Tick, TopicMeta, TopicRegistry, TopicState } from '../../topics/registry.js';
import type { WriteService } from '../../writes/service.js';
import { handleFrame } from './channel.js';
import type { Client } from './client.js';
import { Connections } from './connections.js';
import { DefinitionFanOut } from './definition-fan-out.js';
import type { FilterEntry, Form, ReplyTarget } from './protocol.js';
import { canonicalFilter, definitionsPayload, filterBudgetProblem, Selection } from './selection.js';
import { SystemPush } from './system-push.js';
import type { Timers } from './timers.js';
import { ValueFanOut } from './value-fan-out.js';

export interface HubOptions {
  registry: TopicRegistry;
  writes: WriteService;
  system: SystemInfo;
  clock: Clock;
  timers: Timers;
  /** A socket from which no frame arrived for this long is closed. */
  idleTimeoutMs: number;
  systemIntervalMs: number;
  /** Bytes a socket may have queued before it counts as too slow and is closed. */
  maxBufferedBytes: number;
  /** A topic's value not sent for this long is sent again (0: never). */
  refreshMs: number;
}

/** How often the refresh looks for values due: a value goes out again 12 to 15 s after it last did. */
export const REFRESH_CHECK_DIVISOR = 4;

/**
 * The `metrics` channel: which sockets are joined with which filter. Sockets with equal
 * filters share one {@link Selection}; the parts that send (values, definitions, system
 * rows) walk the selections, and {@link Connections} owns the sockets themselves.
 */
export class MetricsHub {
  private readonly selections = new Map<string, Selection<Client>>();
  private readonly connections: Connections;
  private readonly values: ValueFanOut;
  private readonly definitions: DefinitionFanOut;
  private readonly systemPush: SystemPush;
  private refreshTimer: unknown = null;
  private readonly onTickListener = (tick: Tick) => {
    this.definitions.flush();
    this.values.onTick(tick);
  };
  private readonly onDefinitionsListener = (added: readonly TopicState[], removed: readonly TopicMeta[]) =>
    this.definitions.onDefinitions(added, removed);

  constructor(readonly options: HubOptions) {
    const { registry, clock, timers } = options;
    const { selections } = this;
    this.connections = new Connections({
      clock,
      timers,
      idleTimeoutMs: options.idleTimeoutMs,
      maxBufferedBytes: options.maxBufferedBytes,
      onFrame: (client, frame) => handleFrame(this, client, frame),
      onGone: (client) => this.unjoin(client),
    });
    const send = (client: Client, frame: string | Buffer) => this.connections.send(client, frame);
    const push = (client: Client, event: string, payloadJson: string) =>
      this.connections.push(client, event, payloadJson);
    this.values = new ValueFanOut({ registry, clock, timers, selections, send, push });
    this.definitions = new DefinitionFanOut({ registry, selections, values: this.values, push });
    this.systemPush = new SystemPush({
      system: options.system,
      timers,
      intervalMs: options.systemIntervalMs,
      selections,
      send,
      push,
    });
    registry.on('tick', this.onTickListener);
    registry.on('definitions', this.onDefinitionsListener);
    this.systemPush.start();
    this.scheduleRefresh();
  }

  private scheduleRefresh(): void {
    const { refreshMs, timers } = this.options;
    if (refreshMs <= 0) return;
    this.refreshTimer = timers.setTimeout(() => {
      this.scheduleRefresh();
      this.values.refresh(refreshMs);
    }, refreshMs / REFRESH_CHECK_DIVISOR);
  }

  get clientCount(): number {
    return this.connections.count;
  }

  connect(ws: WebSocket, form: Form, who: string, identity?: Identity): Client {
    return this.connections.connect(ws, form, who, identity);
  }

  /** Joins (or re-joins) the channel: reply, then definitions, current values and system rows. */
  join(client: Client, target: ReplyTarget, entries: readonly FilterEntry[]): void {
    this.unjoin(client);
    const selection = this.acquire(entries);
    selection.clients.add(client);
    client.selection = selection;
    this.reply(client, target, 'ok', {});
    // Sockets joining with the same filter (a reconnect storm, say) share these frames.
    const all = this.options.registry.list();
    this.connections.send(client, selection.definitionsPush(all).frame(client.form));
    this.values.openWindows(client, selection.ordered(all));
    this.connections.send(
      client,
      selection
        .valuesPush(all, this.values.valuesVersion, (states) => this.values.dataPayload(states))
        .frame(client.form),
    );
    void this.systemPush.sendTo(client);
  }

  /** Replaces the filter; newly selected topics get their definitions and current values. */
  replaceFilter(client: Client, target: ReplyTarget, entries: readonly FilterEntry[]): void {
    const before = client.selection!;
    const after = this.acquire(entries);
    after.clients.add(client);
    client.selection = after;
    this.release(before, client);
    client.throttle?.keepOnly(after.members);
    this.reply(client, target, 'ok', {});
    const added = this.options.registry.list().filter((s) => after.members.has(s) && !before.members.has(s));
    if (added.length === 0) return;
    this.push(client, 'definition', definitionsPayload(added));
    this.values.sendValues(client, added);
  }

  unjoin(client: Client): void {
    if (client.selection) this.release(client.selection, client);
    client.selection = null;
    client.throttle?.dispose();
    client.throttle = null;
  }

  reply(client: Client, target: ReplyTarget, status: 'ok' | 'error', response: Record<string, unknown>): void {
    this.connections.reply(client, target, status, response);
  }

  /** A push to one socket. */
  push(client: Client, event: string, payloadJson: string): void {
    this.connections.push(client, event, payloadJson);
  }

  close(client: Client, code: number, reason: string): void {
    this.connections.close(client, code, reason);
  }

  /** Closes every socket (going away) and stops listening to the registry. */
  async closeAll(graceMs = 1000): Promise<void> {
    const { registry } = this.options;
    registry.off('tick', this.onTickListener);
    registry.off('definitions', this.onDefinitionsListener);
    this.systemPush.stop();
    this.options.timers.clearTimeout(this.refreshTimer);
    await this.connections.closeAll(graceMs);
  }

  /** Why a filter cannot be taken on now (too many distinct filters held), or undefined. */
  filterProblem(entries: readonly FilterEntry[], replacing: Selection<Client> | null): string | undefined {
    return filterBudgetProblem(this.selections, canonicalFilter(entries), replacing);
  }

  private acquire(entries: readonly FilterEntry[]): Selection<Client> {
    const canonical = canonicalFilter(entries);
    let selection = this.selections.get(canonical.key);
    if (!selection) {
      selection = new Selection<Client>(canonical.key, canonical.entries, this.options.clock.now());
      selection.add(this.options.registry.list());
      this.selections.set(canonical.key, selection);
    }
    return selection;
  }

  private release(selection: Selection<Client>, client: Client): void {
    selection.clients.delete(client);
    if (selection.clients.size === 0) this.selections.delete(selection.key);
  }
}
