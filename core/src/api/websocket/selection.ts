import { discoveryFields } from '../../topics/discovery.js';
import type { TopicMeta, TopicState } from '../../topics/registry.js';
import { TopicSelection } from '../../topics/selection.js';
import { topicFields } from '../../topics/topic-meta.js';
import { SharedPush, type FilterEntry } from './protocol.js';

/** What a client gets when it joins without naming topics (docs/api.md, "WebSocket"). */
export const DEFAULT_FILTER: readonly FilterEntry[] = [
  { topic: 'total/*' },
  ...['voltage', 'state_of_charge', 'power', 'temperature'].map((m) => ({ topic: `battery_*/${m}` })),
  ...['pv_power', 'load_power', 'grid_power', 'device_mode', 'temperature'].map((m) => ({ topic: `inverter_*/${m}` })),
];

/**
 * One distinct filter, shared by every socket that asked for the same one: which topics it
 * selects and each one's throttle window. Sharing is what lets a tick's `data` payload be
 * serialised once per filter instead of once per socket.
 */
export class Selection<C> extends TopicSelection {
  readonly clients = new Set<C>();
  /** What a join sends, built once for all the sockets that join with this filter. */
  private definitionsCache: SharedPush | null = null;
  private valuesCache: { version: number; push: SharedPush } | null = null;

  constructor(
    readonly key: string,
    entries: ReadonlyArray<readonly [topic: string, windowMs: number]>,
    /** When it was made: the first join sent every member's value then. */
    readonly createdAt = 0,
  ) {
    super(entries);
  }

  /** The join's `definition` push: every member. */
  definitionsPush(all: readonly TopicState[]): SharedPush {
    return (this.definitionsCache ??= new SharedPush('definition', definitionsPayload(this.ordered(all))));
  }

  /** The join's first `data` push: current values of every member, while `version` holds. */
  valuesPush(
    all: readonly TopicState[],
    version: number,
    payload: (states: readonly TopicState[]) => string,
  ): SharedPush {
    if (this.valuesCache?.version !== version)
      this.valuesCache = { version, push: new SharedPush('data', payload(this.ordered(all))) };
    return this.valuesCache.push;
  }

  protected override membershipChanged(): void {
    super.membershipChanged();
    this.definitionsCache = null;
    this.valuesCache = null;
  }
}

/**
 * Distinct filter entries held across all sockets. Equal filters share one Selection, so a
 * thousand sockets with the default filter cost one; a thousand sockets with 256 different
 * entries each would cost 256 000 matchers and member maps (704 MB once). A new distinct
 * filter beyond this is refused with an error reply; joining an existing one always works.
 */
export const MAX_DISTINCT_FILTER_ENTRIES = 8192;

/** Why a socket may not take on this filter now, or undefined. */
export function filterBudgetProblem<C>(
  selections: ReadonlyMap<string, Selection<C>>,
  filter: { key: string; entries: ReadonlyArray<unknown> },
  replacing: Selection<C> | null,
): string | undefined {
  if (selections.has(filter.key)) return undefined;
  let held = 0;
  for (const selection of selections.values()) {
    // The socket's current filter goes away with the change when it is the only user.
    if (selection === replacing && selection.clients.size === 1) continue;
    held += selection.entryCount;
  }
  if (held + filter.entries.length <= MAX_DISTINCT_FILTER_ENTRIES) return undefined;
  return `the server already holds ${held} different filter entries from other clients (at most ${MAX_DISTINCT_FILTER_ENTRIES}): use fewer entries, globs such as "inverter_*/pv_power", or the default filter (join with {})`;
}

/** Filter entries in a canonical form, so equal filters share one {@link Selection}. */
export function canonicalFilter(entries: readonly FilterEntry[]): { key: string; entries: Array<[string, number]> } {
  const windows = new Map<string, number>();
  for (const entry of entries) {
    const windowMs = Math.round((entry.max_frequency_s ?? 0) * 1000);
    const known = windows.get(entry.topic);
    // No limit (0) counts as the smallest: a topic listed once without a limit gets every change.
    windows.set(entry.topic, known === undefined ? windowMs : Math.min(known, windowMs));
  }
  const sorted = [...windows.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { key: JSON.stringify(sorted), entries: sorted };
}

const definitionCache = new WeakMap<TopicMeta, string>();

/** The definition object of a topic as JSON: the Metric object's fields without the value, plus the discovery fields. */
export function definitionJson(meta: TopicMeta): string {
  let json = definitionCache.get(meta);
  if (json === undefined) {
    const definition: Record<string, unknown> = topicFields(meta);
    if (meta.writable) definition.writable = meta.writable;
    // Clients create their entities from the definition, so it always carries these.
    json = JSON.stringify(Object.assign(definition, discoveryFields(meta)));
    definitionCache.set(meta, json);
  }
  return json;
}

export function definitionsPayload(states: readonly TopicState[]): string {
  return `{"definitions":[${states.map((s) => definitionJson(s.meta)).join(',')}]}`;
}
