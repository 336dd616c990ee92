import type { Metric } from '../../contract/types.js';
import { discoveryFields } from '../../topics/discovery.js';
import type { TopicRegistry, TopicState } from '../../topics/registry.js';

/** More filters than this in one revision (a client trying globs): the cache starts over. */
const MAX_CACHED_FILTERS = 64;

/**
 * GET /api/v1/metrics' JSON, a Metric per topic matching the filter, as UTF-8: built once
 * per filter and registry revision (a visible value or the topics changed), so a dashboard
 * polling many times a second costs no serialisation.
 */
export class MetricsSnapshot {
  private readonly cache = new Map<string, Buffer>();
  private revision = -1;

  constructor(private readonly registry: TopicRegistry) {}

  /** The topics matching `glob` (all without one); `discovery` adds the discovery fields to every row. */
  body(glob?: string, discovery = false): Buffer {
    const { registry } = this;
    if (registry.revision !== this.revision) {
      this.cache.clear();
      this.revision = registry.revision;
    }
    const key = `${discovery ? 'd' : '-'}${glob ?? ''}`;
    let body = this.cache.get(key);
    if (body === undefined) {
      const states = glob === undefined ? registry.list() : registry.match(glob);
      body = Buffer.from(JSON.stringify(states.map((s) => metricOf(registry, s, discovery))));
      if (this.cache.size >= MAX_CACHED_FILTERS) this.cache.clear();
      this.cache.set(key, body);
    }
    return body;
  }
}

const snapshots = new WeakMap<TopicRegistry, MetricsSnapshot>();

/** The registry's one snapshot cache, shared by the route and the fast lane (snapshot-lane.ts). */
export function metricsSnapshot(registry: TopicRegistry): MetricsSnapshot {
  let snapshot = snapshots.get(registry);
  if (!snapshot) snapshots.set(registry, (snapshot = new MetricsSnapshot(registry)));
  return snapshot;
}

/** The API's Metric object of a topic, with the discovery fields when asked. */
export function metricOf(registry: TopicRegistry, state: TopicState, discovery = false): Metric {
  const { meta } = state;
  const metric: Metric = {
    topic: meta.topic,
    device: meta.device,
    number: meta.number,
    group: meta.group,
    name: meta.name,
    value: registry.visibleValue(state),
    unit: meta.unit,
  };
  const { writable } = meta;
  if (writable) metric.writable = 'options' in writable ? { options: writable.options } : writable;
  return discovery ? Object.assign(metric, discoveryFields(meta)) : metric;
}
