import type { Clock } from '../../clock.js';
import type { Tick, TopicMeta, TopicRegistry, TopicState } from '../../topics/registry.js';
import type { Client, HubOutlets } from './client.js';
import { SharedPush } from './protocol.js';
import type { Selection } from './selection.js';
import { ThrottleWindows } from './throttle.js';
import type { Timers } from './timers.js';

export interface ValueFanOutOptions extends HubOutlets {
  registry: TopicRegistry;
  clock: Clock;
  timers: Timers;
}

/**
 * Sends value changes to the joined sockets. Equal filters share a {@link Selection}, so a
 * tick's `data` is serialised once per filter (and per throttle situation) and the same
 * bytes are written to every socket; per socket only the send itself remains. Throttled
 * topics (`max_frequency_s`) go through each socket's {@link ThrottleWindows}.
 */
export class ValueFanOut {
  /** `{"topic":..,"value":..}` of each topic, until its value changes. */
  private readonly fragments = new Map<TopicState, string>();
  /** Counts value changes, so a join's cached current values know when they are outdated. */
  private version = 0;

  constructor(private readonly options: ValueFanOutOptions) {}

  get valuesVersion(): number {
    return this.version;
  }

  /** `{"metrics":[...]}` with the current values of `states`. */
  dataPayload(states: readonly TopicState[]): string {
    let json = '{"metrics":[';
    for (let i = 0; i < states.length; i++) json += (i > 0 ? ',' : '') + this.fragment(states[i]!);
    return json + ']}';
  }

  /** Sends current values to one socket; for throttled topics this opens their window. */
  sendValues(client: Client, states: readonly TopicState[]): void {
    this.openWindows(client, states);
    this.options.push(client, 'data', this.dataPayload(states));
  }

  /** Opens the throttle windows of the throttled topics among `states` (just sent). */
  openWindows(client: Client, states: readonly TopicState[]): void {
    const selection = client.selection;
    if (!selection?.throttled) return;
    const throttle = this.throttleOf(client);
    const now = this.options.clock.now();
    for (const state of states) {
      const windowMs = selection.members.get(state) ?? 0;
      if (windowMs > 0) throttle.open(state, now + windowMs);
    }
  }

  /** Topics that are gone: their cached fragments go too. */
  forget(removed: readonly TopicMeta[]): void {
    for (const state of this.fragments.keys()) if (removed.includes(state.meta)) this.fragments.delete(state);
  }

  onTick(tick: Tick): void {
    if (tick.changed.length === 0) return;
    this.version++;
    const { selections } = this.options;
    // Before the early return: the next join builds its first `data` from these fragments,
    // so a change made while no socket is joined must still invalidate them.
    for (const state of tick.changed) this.fragments.delete(state);
    if (selections.size === 0) return;
    let changed = tick.changed;
    // The registry lists a topic once per tick, but a deriver may add one again: send it once.
    if (new Set(changed).size !== changed.length) changed = [...new Set(changed)];
    const now = this.options.clock.now();
    for (const selection of selections.values()) {
      let selected: TopicState[] | null = null;
      let throttled = false;
      for (const state of changed) {
        const windowMs = selection.members.get(state);
        if (windowMs === undefined) continue;
        (selected ??= []).push(state);
        if (windowMs > 0) throttled = true;
      }
      if (selected === null) continue;
      for (const state of selected) selection.sentAt.set(state, now);
      if (!throttled) {
        const push = new SharedPush('data', this.dataPayload(selected));
        for (const client of selection.clients) this.options.send(client, push.frame(client.form));
      } else {
        this.sendThrottled(selection, selected, now);
      }
    }
  }

  /**
   * Re-sends the values of a filter's topics that have not gone out for `refreshMs`, one
   * payload per filter shared by its sockets, so a client whose values hold still (a quiet
   * night, a full battery) still sees data frames: the Homey app takes 30 s without one for
   * a dead socket. Throttled topics go through each socket's windows as changes do.
   */
  refresh(refreshMs: number): void {
    const now = this.options.clock.now();
    const all = this.options.registry.list();
    for (const selection of this.options.selections.values()) {
      let due: TopicState[] | null = null;
      for (const state of selection.ordered(all)) {
        if ((selection.sentAt.get(state) ?? selection.createdAt) > now - refreshMs) continue;
        (due ??= []).push(state);
        selection.sentAt.set(state, now);
      }
      if (due === null) continue;
      if (selection.throttled) this.sendThrottled(selection, due, now);
      else {
        const push = new SharedPush('data', this.dataPayload(due));
        for (const client of selection.clients) this.options.send(client, push.frame(client.form));
      }
    }
  }

  private fragment(state: TopicState): string {
    let json = this.fragments.get(state);
    if (json === undefined) {
      json = `{"topic":${JSON.stringify(state.meta.topic)},"value":${JSON.stringify(this.options.registry.visibleValue(state))}}`;
      this.fragments.set(state, json);
    }
    return json;
  }

  private throttleOf(client: Client): ThrottleWindows {
    return (client.throttle ??= new ThrottleWindows(this.options.clock, this.options.timers, (due) =>
      this.sendValues(client, due),
    ));
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
      this.options.send(client, push.frame(client.form));
    }
  }
}
