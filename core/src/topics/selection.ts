import { compileGlob, type GlobMatcher } from './glob.js';
import type { TopicMeta, TopicState } from './registry.js';

interface Matcher {
  re: GlobMatcher;
  windowMs: number;
}

/**
 * The topics a glob filter selects, each with its throttle window, kept up to date as topics
 * come and go (`add` the new ones, `remove` the gone ones). The WebSocket's filters
 * (api/websocket/selection.ts, which adds the frames shared by the sockets of one filter) and
 * `ctx.integration.subscribe` select topics the same way through it.
 */
export class TopicSelection {
  /** Selected topics and their throttle window in ms (0 = every change is sent). */
  readonly members = new Map<TopicState, number>();
  /** When each member's value last went out (a change or a refresh), for its throttle window. */
  readonly sentAt = new Map<TopicState, number>();
  /** How many members have a throttle window. */
  private throttledMembers = 0;
  private readonly matchers: Matcher[];
  private orderedCache: TopicState[] | null = null;

  constructor(entries: ReadonlyArray<readonly [topic: string, windowMs: number]>) {
    this.matchers = entries.map(([topic, windowMs]) => ({ re: compileGlob(topic), windowMs }));
  }

  /** Distinct entries of the filter (what it costs against MAX_DISTINCT_FILTER_ENTRIES). */
  get entryCount(): number {
    return this.matchers.length;
  }

  /** Adds those of `states` the filter selects; returns the ones that were not members yet. */
  add(states: Iterable<TopicState>): TopicState[] {
    const added: TopicState[] = [];
    for (const state of states) {
      if (this.members.has(state)) continue;
      const windowMs = this.windowOf(state.meta.topic);
      if (windowMs === undefined) continue;
      this.members.set(state, windowMs);
      if (windowMs > 0) this.throttledMembers++;
      added.push(state);
    }
    if (added.length > 0) this.membershipChanged();
    return added;
  }

  remove(metas: readonly TopicMeta[]): void {
    for (const state of this.members.keys()) {
      if (metas.includes(state.meta)) {
        if (this.members.get(state)! > 0) this.throttledMembers--;
        this.members.delete(state);
        this.sentAt.delete(state);
        this.membershipChanged();
      }
    }
  }

  /** Whether any member is throttled (else every socket gets the same data). */
  get throttled(): boolean {
    return this.throttledMembers > 0;
  }

  /** Members in snapshot order; `all` is the registry's list. */
  ordered(all: readonly TopicState[]): readonly TopicState[] {
    return (this.orderedCache ??= all.filter((s) => this.members.has(s)));
  }

  /** Called when members come or go: what was built from the members is built again. */
  protected membershipChanged(): void {
    this.orderedCache = null;
  }

  /** The throttle window of a topic the filter selects (the smallest of the matching entries). */
  private windowOf(topic: string): number | undefined {
    let best: number | undefined;
    for (const m of this.matchers) {
      if (!m.re.test(topic)) continue;
      if (m.windowMs === 0) return 0;
      if (best === undefined || m.windowMs < best) best = m.windowMs;
    }
    return best;
  }
}
