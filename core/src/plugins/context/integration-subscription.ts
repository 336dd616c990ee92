import type { SubscribeOptions, TopicUpdate } from '@heliograph/plugins-sdk';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import type { Tick, TopicMeta, TopicRegistry, TopicState } from '../../topics/registry.js';
import { TopicSelection } from '../../topics/selection.js';

/**
 * One `ctx.integration.subscribe`: a {@link TopicSelection} (the WebSocket's glob filter,
 * kept up to date as topics come and go) fed by the registry's ticks, as the WebSocket's
 * value fan-out is. Definitions changed in one synchronous run (a plugin declaring a device
 * topic by topic) reach the plugin as one `onDefinitions`, followed by the new topics' values.
 */
export class IntegrationSubscription {
  private readonly selection: TopicSelection;
  private pendingAdded: TopicState[] = [];
  private definitionsQueued = false;
  private stopped = false;

  constructor(
    private readonly registry: TopicRegistry,
    private readonly clock: Clock,
    private readonly options: SubscribeOptions,
    private readonly log: Logger,
  ) {
    const filter = options.filter ?? ['*'];
    this.selection = new TopicSelection([...new Set(filter)].map((topic) => [topic, 0] as const));
  }

  /** Selects the current topics, hands their values on at once, then follows the registry. */
  start(): () => void {
    const { registry } = this;
    this.selection.add(registry.list());
    registry.on('tick', this.onTick);
    registry.on('definitions', this.onDefinitions);
    this.deliver(this.selection.ordered(registry.list()));
    return () => this.stop();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.registry.off('tick', this.onTick);
    this.registry.off('definitions', this.onDefinitions);
  }

  private readonly onTick = (tick: Tick): void => {
    const { members } = this.selection;
    let selected: TopicState[] | null = null;
    for (const state of tick.changed) if (members.has(state)) (selected ??= []).push(state);
    if (selected === null) return;
    // The registry lists a topic once per tick, but a deriver may add one again: send it once.
    if (new Set(selected).size !== selected.length) selected = [...new Set(selected)];
    this.deliver(selected, tick.time);
  };

  private readonly onDefinitions = (added: readonly TopicState[], removed: readonly TopicMeta[]): void => {
    if (removed.length > 0) this.selection.remove(removed);
    this.pendingAdded.push(...added);
    if (this.definitionsQueued) return;
    this.definitionsQueued = true;
    queueMicrotask(this.flushDefinitions);
  };

  private readonly flushDefinitions = (): void => {
    this.definitionsQueued = false;
    const added = this.pendingAdded.filter((s) => this.registry.get(s.meta.topic) === s);
    this.pendingAdded = [];
    if (this.stopped) return;
    const fresh = this.selection.add(added);
    this.call('onDefinitions', () => this.options.onDefinitions?.());
    if (fresh.length > 0) this.deliver(fresh);
  };

  /** Values of a tick at its time; current values (no tick) at the time of their last reading. */
  private deliver(states: readonly TopicState[], tickTime?: number): void {
    if (this.stopped || states.length === 0) return;
    const now = this.clock.now();
    const updates: TopicUpdate[] = states.map((state) => ({
      topic: state.meta.topic,
      value: this.registry.visibleValue(state),
      time: tickTime ?? (state.updatedAt || now),
    }));
    this.call('onValues', () => this.options.onValues(updates));
  }

  /** A callback of the plugin's: what it throws is logged, never passed on to the registry. */
  private call(name: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error(`the subscription's ${name} threw`, { err });
    }
  }
}
