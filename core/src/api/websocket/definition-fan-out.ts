import type { TopicMeta, TopicRegistry, TopicState } from '../../topics/registry.js';
import type { HubOutlets } from './client.js';
import { definitionsPayload } from './selection.js';
import type { ValueFanOut } from './value-fan-out.js';

export interface DefinitionFanOutOptions extends Pick<HubOutlets, 'selections' | 'push'> {
  registry: TopicRegistry;
  values: ValueFanOut;
}

/**
 * Topics defined or removed while sockets are joined: each selection learns of them, and
 * sockets whose filter selects a new topic get its definition, then its current value.
 */
export class DefinitionFanOut {
  private pendingAdded: TopicState[] = [];

  constructor(private readonly options: DefinitionFanOutOptions) {}

  onDefinitions(added: readonly TopicState[], removed: readonly TopicMeta[]): void {
    if (removed.length > 0) {
      for (const selection of this.options.selections.values()) {
        selection.remove(removed);
        // A held-back value of a removed topic would go out when its window ends, after
        // (and over) the value of a topic defined anew under the same name.
        for (const client of selection.clients) client.throttle?.keepOnly(selection.members);
      }
      this.options.values.forget(removed);
    }
    if (added.length === 0) return;
    // Topics are often defined one by one in a loop: tell clients about them in one push.
    if (this.pendingAdded.length === 0) queueMicrotask(() => this.flush());
    this.pendingAdded.push(...added);
  }

  /**
   * New topics: definitions, then their current values, to every socket whose filter selects
   * them. Runs at the next tick too, so a definition always goes out before its first change.
   */
  flush(): void {
    if (this.pendingAdded.length === 0) return;
    const { registry, selections, values } = this.options;
    const added = this.pendingAdded.filter((s) => registry.get(s.meta.topic) === s);
    this.pendingAdded = [];
    for (const selection of selections.values()) {
      const fresh = selection.add(added);
      if (fresh.length === 0) continue;
      const definitions = definitionsPayload(fresh);
      for (const client of selection.clients) {
        this.options.push(client, 'definition', definitions);
        values.sendValues(client, fresh);
      }
    }
  }
}
