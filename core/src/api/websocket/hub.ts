import type { WebSocket } from 'ws';
import type { Identity } from '../../auth/types.js';
import type { Clock } from '../../clock.js';
import { createLogger, errorMessage } from '../../log.js';
import type { Tick, TopicMeta, TopicRegistry, TopicState } from '../../topics/registry.js';
import type { WriteService } from '../../writes/service.js';
import { handleFrame } from './channel.js';
import { decodeFrame, encodePush, encodeReply, SharedPush, type FilterEntry, type Form, type ReplyTarget } from './protocol.js';
import { canonicalFilter, definitionsPayload, filterBudgetProblem, Selection } from './selection.js';
import type { SystemInfo } from '../../system/info.js';
import { ThrottleWindows } from './throttle.js';
import type { Timers } from './timers.js';

const log = createLogger('websocket');

/** Close codes the stream uses; 4000-4999 are free for applications (RFC 6455). */
export const CLOSE_IDLE = 4000;
export const CLOSE_TOO_SLOW = 4008;
export const CLOSE_GOING_AWAY = 1001;

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
}

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

const TEXT = { binary: false } as const;

/**
 * Fans registry changes out to the joined sockets. Equal filters share a {@link Selection},
 * so a tick's `data` is serialised once per filter (and per throttle situation) and the same
 * bytes are written to every socket; per socket only the send itself remains.
 */
export class MetricsHub {
  private readonly clients = new Set<Client>();
  private readonly selections = new Map<string, Selection<Client>>();
  /** `{"topic":..,"value":..}` of each topic, until its value changes. */
  private readonly fragments = new Map<TopicState, string>();
  private pendingAdded: TopicState[] = [];
  /** Counts value changes, so a join's cached current values know when they are outdated. */
  private valuesVersion = 0;
  private systemTimer: unknown = null;
  private readonly onTickListener = (tick: Tick) => this.onTick(tick);
  private readonly onDefinitionsListener = (added: readonly TopicState[], removed: readonly TopicMeta[]) => this.onDefinitions(added, removed);

  constructor(readonly options: HubOptions) {
    options.registry.on('tick', this.onTickListener);
    options.registry.on('definitions', this.onDefinitionsListener);
    this.scheduleSystemPush();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  connect(ws: WebSocket, form: Form, who: string, identity?: Identity): Client {
    const { clock } = this.options;
    const client = new Client(ws, form, who, clock.now(), identity);
    this.clients.add(client);
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onMessage(client, data, isBinary));
    ws.on('close', () => this.forget(client));
    ws.on('error', (err) => log.debug('socket error', { who, err: errorMessage(err) }));
    this.armIdle(client, this.options.idleTimeoutMs);
    return client;
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
    this.send(client, selection.definitionsPush(all).frame(client.form));
    this.openWindows(client, selection.ordered(all));
    this.send(client, selection.valuesPush(all, this.valuesVersion, (states) => this.dataPayload(states)).frame(client.form));
    void this.sendSystem(client);
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
    this.sendValues(client, added);
  }

  unjoin(client: Client): void {
    if (client.selection) this.release(client.selection, client);
    client.selection = null;
    client.throttle?.dispose();
    client.throttle = null;
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
      log.warn('closing a WebSocket client that does not keep up', { who: client.who, queued: client.ws.bufferedAmount });
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

  /** Closes every socket (going away) and stops listening to the registry. */
  async closeAll(graceMs = 1000): Promise<void> {
    const { registry, timers } = this.options;
    registry.off('tick', this.onTickListener);
    registry.off('definitions', this.onDefinitionsListener);
    timers.clearTimeout(this.systemTimer);
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
      handleFrame(this, client, decoded.frame);
    } catch (err) {
      log.error('handling a WebSocket frame failed', { who: client.who, err });
      const { joinRef, ref, topic } = decoded.frame;
      if (ref !== null) this.reply(client, { joinRef, ref, topic }, 'error', { reason: 'internal error; see the server log' });
    }
  }

  private forget(client: Client): void {
    if (client.closed) return;
    client.closed = true;
    this.clients.delete(client);
    this.unjoin(client);
    this.options.timers.clearTimeout(client.idleTimer);
  }

  private armIdle(client: Client, delayMs: number): void {
    client.idleTimer = this.options.timers.setTimeout(() => {
      // One timer per socket, re-armed lazily: frames only stamp lastFrameAt.
      const idleMs = this.options.clock.now() - client.lastFrameAt;
      if (idleMs >= this.options.idleTimeoutMs) {
        this.close(client, CLOSE_IDLE, `idle: no frame for ${Math.round(this.options.idleTimeoutMs / 1000)} s; send a heartbeat every 30 s`);
      } else {
        this.armIdle(client, this.options.idleTimeoutMs - idleMs);
      }
    }, delayMs);
  }

  /** Why a filter cannot be taken on now (too many distinct filters held), or undefined. */
  filterProblem(entries: readonly FilterEntry[], replacing: Selection<Client> | null): string | undefined {
    return filterBudgetProblem(this.selections, canonicalFilter(entries), replacing);
  }

  private acquire(entries: readonly FilterEntry[]): Selection<Client> {
    const canonical = canonicalFilter(entries);
    let selection = this.selections.get(canonical.key);
    if (!selection) {
      selection = new Selection<Client>(canonical.key, canonical.entries);
      selection.add(this.options.registry.list());
      this.selections.set(canonical.key, selection);
    }
    return selection;
  }

  private release(selection: Selection<Client>, client: Client): void {
    selection.clients.delete(client);
    if (selection.clients.size === 0) this.selections.delete(selection.key);
  }

  private fragment(state: TopicState): string {
    let json = this.fragments.get(state);
    if (json === undefined) {
      json = `{"topic":${JSON.stringify(state.meta.topic)},"value":${JSON.stringify(this.options.registry.visibleValue(state))}}`;
      this.fragments.set(state, json);
    }
    return json;
  }

  private dataPayload(states: readonly TopicState[]): string {
    let json = '{"metrics":[';
    for (let i = 0; i < states.length; i++) json += (i > 0 ? ',' : '') + this.fragment(states[i]!);
    return json + ']}';
  }

  /** Sends current values to one socket; for throttled topics this opens their window. */
  private sendValues(client: Client, states: readonly TopicState[]): void {
    this.openWindows(client, states);
    this.push(client, 'data', this.dataPayload(states));
  }

  private openWindows(client: Client, states: readonly TopicState[]): void {
    const selection = client.selection;
    if (!selection?.throttled) return;
    const throttle = this.throttleOf(client);
    const now = this.options.clock.now();
    for (const state of states) {
      const windowMs = selection.members.get(state) ?? 0;
      if (windowMs > 0) throttle.open(state, now + windowMs);
    }
  }

  private throttleOf(client: Client): ThrottleWindows {
    return (client.throttle ??= new ThrottleWindows(this.options.clock, this.options.timers, (due) => this.sendValues(client, due)));
  }

  private onTick(tick: Tick): void {
    this.flushDefinitions();
    if (tick.changed.length === 0) return;
    this.valuesVersion++;
    // Before the early return: the next join builds its first `data` from these fragments,
    // so a change made while no socket is joined must still invalidate them.
    for (const state of tick.changed) this.fragments.delete(state);
    if (this.selections.size === 0) return;
    let changed = tick.changed;
    // The registry lists a topic once per tick, but a deriver may add one again: send it once.
    if (new Set(changed).size !== changed.length) changed = [...new Set(changed)];
    const now = this.options.clock.now();
    for (const selection of this.selections.values()) {
      let selected: TopicState[] | null = null;
      let throttled = false;
      for (const state of changed) {
        const windowMs = selection.members.get(state);
        if (windowMs === undefined) continue;
        (selected ??= []).push(state);
        if (windowMs > 0) throttled = true;
      }
      if (selected === null) continue;
      if (!throttled) {
        const push = new SharedPush('data', this.dataPayload(selected));
        for (const client of selection.clients) this.send(client, push.frame(client.form));
      } else {
        this.sendThrottled(selection, selected, now);
      }
    }
  }

  /** Sockets of one filter whose windows line up (they joined together) still share a payload. */
  private sendThrottled(selection: Selection<Client>, selected: readonly TopicState[], now: number): void {
    const shared = new Map<string, SharedPush>();
    for (const client of selection.clients) {
      const due: TopicState[] = [];
      let key = '';
      for (let i = 0; i < selected.length; i++) {
        const state = selected[i]!;
        const windowMs = selection.members.get(state)!;
        if (windowMs > 0 && !this.throttleOf(client).admit(state, windowMs, now)) continue;
        due.push(state);
        key += i + ',';
      }
      if (due.length === 0) continue;
      let push = shared.get(key);
      if (!push) shared.set(key, (push = new SharedPush('data', this.dataPayload(due))));
      this.send(client, push.frame(client.form));
    }
  }

  private onDefinitions(added: readonly TopicState[], removed: readonly TopicMeta[]): void {
    if (removed.length > 0) {
      for (const selection of this.selections.values()) {
        selection.remove(removed);
        // A held-back value of a removed topic would go out when its window ends, after
        // (and over) the value of a topic defined anew under the same name.
        for (const client of selection.clients) client.throttle?.keepOnly(selection.members);
      }
      for (const state of this.fragments.keys()) if (removed.includes(state.meta)) this.fragments.delete(state);
    }
    if (added.length === 0) return;
    // Topics are often defined one by one in a loop: tell clients about them in one push.
    if (this.pendingAdded.length === 0) queueMicrotask(() => this.flushDefinitions());
    this.pendingAdded.push(...added);
  }

  /** New topics: definitions, then their current values, to every socket whose filter selects them. */
  private flushDefinitions(): void {
    if (this.pendingAdded.length === 0) return;
    const { registry } = this.options;
    const added = this.pendingAdded.filter((s) => registry.get(s.meta.topic) === s);
    this.pendingAdded = [];
    for (const selection of this.selections.values()) {
      const fresh = selection.add(added);
      if (fresh.length === 0) continue;
      const definitions = definitionsPayload(fresh);
      for (const client of selection.clients) {
        this.push(client, 'definition', definitions);
        this.sendValues(client, fresh);
      }
    }
  }

  private async sendSystem(client: Client): Promise<void> {
    try {
      const payload = await this.options.system.payloadJson();
      if (client.selection) this.push(client, 'system', payload);
    } catch (err) {
      log.error('building the system rows failed', { err });
    }
  }

  private scheduleSystemPush(): void {
    this.systemTimer = this.options.timers.setTimeout(() => {
      this.scheduleSystemPush();
      void this.broadcastSystem();
    }, this.options.systemIntervalMs);
  }

  private async broadcastSystem(): Promise<void> {
    if (this.selections.size === 0) return;
    try {
      const push = new SharedPush('system', await this.options.system.payloadJson());
      for (const selection of this.selections.values()) {
        for (const client of selection.clients) this.send(client, push.frame(client.form));
      }
    } catch (err) {
      log.error('building the system rows failed', { err });
    }
  }
}
