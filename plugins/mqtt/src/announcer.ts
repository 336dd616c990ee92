import type { MetricValue, PluginStore, TopicDefinition } from '@heliograph/plugins-sdk';
import { configTopic, discoveryConfig, type DiscoveryNames } from './discovery.js';

const STORE_KEY = 'discovery-topics';

export interface AnnouncerOptions {
  names: DiscoveryNames;
  /** False: every config announced before is taken back. */
  enabled: boolean;
  store: PluginStore;
  /** Sends one retained config (an empty payload removes the entity). */
  send: (topic: string, payload: string) => Promise<void>;
}

/**
 * Keeps Home Assistant's discovery configs in line with the bridged topics: announces new
 * and changed ones, and takes back (empty retained config) those whose topic is gone. The
 * config topics it announced are kept in the plugin store, so topics that vanished while
 * the service was down are taken back at the next start too.
 */
export class Announcer {
  /** Config topic -> payload announced; '' for one known only from the store. */
  private announced: Map<string, string> | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly options: AnnouncerOptions) {}

  /**
   * Announces `definitions` (the bridged ones). `force` sends every config again (after a
   * reconnect: a broker without persistence has forgotten them). Calls run one at a time.
   */
  announce(definitions: readonly TopicDefinition[], values: ReadonlyMap<string, MetricValue>, force: boolean) {
    const run = this.running.then(() => this.announceNow(definitions, values, force));
    this.running = run.catch(() => undefined);
    return run;
  }

  private async announceNow(
    definitions: readonly TopicDefinition[],
    values: ReadonlyMap<string, MetricValue>,
    force: boolean,
  ): Promise<void> {
    const { names, store, send } = this.options;
    if (!this.announced) {
      const stored = (await store.get<string[]>(STORE_KEY)) ?? [];
      this.announced = new Map(stored.map((topic) => [topic, '']));
    }
    const announced = this.announced;
    const wanted = new Map<string, string>();
    if (this.options.enabled)
      for (const definition of definitions)
        wanted.set(configTopic(names, definition), JSON.stringify(discoveryConfig(names, definition, values)));
    const before = [...announced.keys()].sort().join('\n');
    for (const [topic, payload] of wanted) {
      if (!force && announced.get(topic) === payload) continue;
      await send(topic, payload);
      announced.set(topic, payload);
    }
    for (const topic of [...announced.keys()]) {
      if (wanted.has(topic)) continue;
      await send(topic, '');
      announced.delete(topic);
    }
    const after = [...announced.keys()].sort();
    if (after.join('\n') !== before) await store.set(STORE_KEY, after);
  }
}
