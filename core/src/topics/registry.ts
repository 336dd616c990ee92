import type { MetricValue } from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import { SafeEmitter } from '../events.js';
import { compileGlob, type GlobMatcher } from './glob.js';
import type { TopicMeta } from './topic-meta.js';

export type { Group, TopicMeta, Writable } from './topic-meta.js';

/** A topic and its current reading. Owned by the registry; read, never mutate. */
export interface TopicState {
  /** Replaced only by {@link TopicRegistry.redefine}. */
  readonly meta: TopicMeta;
  /** Last published value, regardless of staleness; use {@link TopicRegistry.visibleValue}. */
  value: MetricValue;
  /** Unix ms of the last reading, 0 before the first. */
  updatedAt: number;
  /** The device behind this topic has gone quiet or was marked unavailable; the value reads null. */
  stale: boolean;
  /** Number of the tick this topic was last queued in as a reading / a change (so a topic published twice in one run is delivered once). */
  readingTick: number;
  changeTick: number;
}

/** What one tick delivered: all readings, and the topics whose visible value changed. */
export interface Tick {
  time: number;
  /** Every reading of this tick, changed or not (history samples them all). */
  readings: readonly TopicState[];
  /** Topics whose visible value changed, including going stale or coming back. */
  changed: readonly TopicState[];
}

export interface RegistryEvents {
  tick: (tick: Tick) => void;
  /** Topics were added or removed. */
  definitions: (added: readonly TopicState[], removed: readonly TopicMeta[]) => void;
}

/** A tick being assembled; derivers add their topics to it with {@link TopicRegistry.setDerived}. */
export interface PendingTick extends Tick {
  readings: TopicState[];
  changed: TopicState[];
}

/** Computes derived topics (totals) inside a tick, before listeners see it. */
export type Deriver = (tick: PendingTick) => void;

interface DeviceLiveness {
  lastSeen: number;
  staleAfterMs: number;
  /** Its topics read null: no answer within staleAfterMs, or marked unavailable. */
  stale: boolean;
  /** Why the plugin marked it unavailable; null while it is not. */
  unavailable: string | null;
  /** Its topics that go null with it (every one but its identity rows). */
  topics: Set<TopicState>;
}

/** Whether a device answers, as GET /api/v1/plugins shows it. */
export interface Availability {
  available: boolean;
  reason: string | null;
}

/**
 * Current values of every topic, and the change events everything else hangs on.
 *
 * Readings published in one synchronous run (one plugin publish call, say) are gathered and
 * delivered as one tick on the next microtask, after the derivers (totals, energy) have
 * added their topics to it. {@link revision} tells a reader that caches what it made of the
 * values (the API's snapshot JSON) when to make it anew.
 */
export class TopicRegistry extends SafeEmitter<RegistryEvents> {
  private readonly states = new Map<string, TopicState>();
  private sorted: TopicState[] = [];
  private readonly devices = new Map<string, DeviceLiveness>();
  private readonly derivers: Deriver[] = [];
  private pendingReadings: TopicState[] = [];
  private pendingChanged: TopicState[] = [];
  private flushQueued = false;
  /** Number of the tick being gathered. */
  private tickNumber = 1;
  private revisionNumber = 0;
  private readonly globCache = new Map<string, GlobMatcher>();

  constructor(private readonly clock: Clock) {
    super();
  }

  /** Adds a topic. Returns a disposer that removes it again. */
  define(meta: TopicMeta, initial: MetricValue = null): () => void {
    if (this.states.has(meta.topic)) throw new Error(`topic ${meta.topic} is already defined`);
    const state: TopicState = { meta, value: initial, updatedAt: 0, stale: false, readingTick: 0, changeTick: 0 };
    this.states.set(meta.topic, state);
    const device = this.devices.get(meta.deviceId);
    if (device && !meta.identity) {
      device.topics.add(state);
      state.stale = device.stale;
    }
    this.definitionsChanged();
    this.emit('definitions', [state], []);
    return () => {
      if (this.states.get(meta.topic) !== state) return;
      this.states.delete(meta.topic);
      this.devices.get(meta.deviceId)?.topics.delete(state);
      this.definitionsChanged();
      this.emit('definitions', [], [meta]);
    };
  }

  /**
   * Tracks liveness of a device: after `staleAfterMs` without a reading its topics read null.
   * Returns a disposer.
   */
  trackDevice(deviceId: string, staleAfterMs: number): () => void {
    const device: DeviceLiveness = {
      lastSeen: this.clock.now(),
      staleAfterMs,
      stale: false,
      unavailable: null,
      topics: new Set(),
    };
    for (const state of this.states.values())
      if (state.meta.deviceId === deviceId && !state.meta.identity) device.topics.add(state);
    this.devices.set(deviceId, device);
    return () => {
      if (this.devices.get(deviceId) === device) this.devices.delete(deviceId);
    };
  }

  /**
   * Replaces a topic's definition (a setting's new range), keeping its value. Listeners see
   * the old definition removed and the new one added.
   */
  redefine(state: TopicState, meta: TopicMeta): void {
    if (this.states.get(meta.topic) !== state) throw new Error(`topic ${meta.topic} is not defined`);
    const old = state.meta;
    (state as { meta: TopicMeta }).meta = meta;
    this.revisionNumber++;
    this.emit('definitions', [], [old]);
    this.emit('definitions', [state], []);
  }

  /**
   * The plugin says a tracked device does not answer: its topics read null at once (and
   * history records nothing for them) until it publishes a value or is marked available.
   */
  markUnavailable(deviceId: string, reason: string): void {
    const device = this.devices.get(deviceId);
    if (!device) return;
    device.unavailable = reason;
    if (!device.stale) this.setStale(device, true);
  }

  /** The device answers again: as a publish of a value would say. */
  markAvailable(deviceId: string): void {
    const device = this.devices.get(deviceId);
    if (device) this.answered(device, this.clock.now());
  }

  /** Whether a tracked device answers, and why not; undefined for an untracked one. */
  availability(deviceId: string): Availability | undefined {
    const device = this.devices.get(deviceId);
    if (!device) return undefined;
    if (!device.stale) return { available: true, reason: null };
    return {
      available: false,
      reason: device.unavailable ?? `no reading for more than ${Math.round(device.staleAfterMs / 1000)} s`,
    };
  }

  get(topic: string): TopicState | undefined {
    return this.states.get(topic);
  }

  /** All topics in snapshot order (by topic, ascending). */
  list(): readonly TopicState[] {
    return this.sorted;
  }

  /** Topics matching a glob, in snapshot order. */
  match(glob: string): TopicState[] {
    const re = this.compile(glob);
    return this.sorted.filter((s) => re.test(s.meta.topic));
  }

  /** The value a client sees: null while the device is stale. */
  visibleValue(state: TopicState): MetricValue {
    return state.stale ? null : state.value;
  }

  /**
   * Publishes a reading. Delivered to listeners with the rest of this tick. A value (not
   * null) says the device answers: it is no longer stale or unavailable.
   */
  publish(state: TopicState, value: MetricValue): void {
    value = switchPayload(state.meta, value);
    const now = this.clock.now();
    if (value !== null && !state.meta.identity) {
      const device = this.devices.get(state.meta.deviceId);
      if (device) this.answered(device, now);
    }
    const changed = state.value !== value;
    state.value = value;
    state.updatedAt = now;
    if (state.readingTick !== this.tickNumber) {
      state.readingTick = this.tickNumber;
      this.pendingReadings.push(state);
    }
    if (changed) this.queueChange(state);
    this.queueFlush();
  }

  /** Sets a derived value from inside a deriver: joins the tick being delivered. */
  setDerived(state: TopicState, value: MetricValue, tick: PendingTick): void {
    const changed = state.value !== value;
    state.value = value;
    state.updatedAt = tick.time;
    tick.readings.push(state);
    if (changed) tick.changed.push(state);
  }

  addDeriver(deriver: Deriver): () => void {
    this.derivers.push(deriver);
    return () => {
      const i = this.derivers.indexOf(deriver);
      if (i >= 0) this.derivers.splice(i, 1);
    };
  }

  /**
   * Marks devices that have not answered within their stale timeout. Called on a timer by
   * the composition root; tests call it after moving a manual clock.
   */
  checkStale(): void {
    const now = this.clock.now();
    for (const device of this.devices.values()) {
      if (!device.stale && now - device.lastSeen > device.staleAfterMs) this.setStale(device, true);
    }
  }

  /** Delivers the pending tick now rather than on the next microtask (tests, benchmarks). */
  flush(): void {
    this.flushQueued = false;
    if (this.pendingReadings.length === 0 && this.pendingChanged.length === 0) return;
    const tick: PendingTick = { time: this.clock.now(), readings: this.pendingReadings, changed: this.pendingChanged };
    this.pendingReadings = [];
    this.pendingChanged = [];
    this.tickNumber++;
    for (const derive of this.derivers) derive(tick);
    if (tick.changed.length > 0) this.revisionNumber++;
    this.emit('tick', tick);
  }

  /**
   * Changes whenever a visible value or the set of topics changes (not for a reading that
   * repeats its value): what was read at the same revision still holds.
   */
  get revision(): number {
    return this.revisionNumber;
  }

  private answered(device: DeviceLiveness, now: number): void {
    device.lastSeen = now;
    device.unavailable = null;
    if (device.stale) this.setStale(device, false);
  }

  private setStale(device: DeviceLiveness, stale: boolean): void {
    device.stale = stale;
    for (const state of device.topics) {
      state.stale = stale;
      if (state.value !== null) this.queueChange(state);
    }
    this.queueFlush();
  }

  private queueChange(state: TopicState): void {
    if (state.changeTick === this.tickNumber) return;
    state.changeTick = this.tickNumber;
    this.pendingChanged.push(state);
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => this.flush());
  }

  private definitionsChanged(): void {
    this.sorted = [...this.states.values()].sort((a, b) =>
      a.meta.topic < b.meta.topic ? -1 : a.meta.topic > b.meta.topic ? 1 : 0,
    );
    this.revisionNumber++;
  }

  private compile(glob: string): GlobMatcher {
    let re = this.globCache.get(glob);
    if (!re) {
      re = compileGlob(glob);
      if (this.globCache.size > 256) this.globCache.clear();
      this.globCache.set(glob, re);
    }
    return re;
  }
}

/**
 * A switch setting reads as its payload string, always (docs/api.md, switch settings): a
 * driver that publishes the state it read as `true` / `false` (or the payload in another
 * case) is shown as the payload, so the value keeps one type whether it came from a write
 * or a poll.
 */
export function switchPayload(meta: TopicMeta, value: MetricValue): MetricValue {
  const sw = meta.writable && 'options' in meta.writable ? meta.writable.switch : undefined;
  if (!sw || value === null) return value;
  if (value === true) return sw.on;
  if (value === false) return sw.off;
  if (typeof value === 'string') {
    const text = value.toLowerCase();
    if (text === sw.on.toLowerCase()) return sw.on;
    if (text === sw.off.toLowerCase()) return sw.off;
  }
  return value;
}
