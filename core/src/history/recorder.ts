/**
 * Recorder: feeds every reading of recorded topics from the registry into the HistoryStore,
 * and samples topics whose value held still, so that flat periods (PV at night, a setting
 * nobody touches) are not gaps. A stale device records nothing: its gap is real.
 */
import type { RecordedReading } from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import type { TopicMeta, TopicRegistry, TopicState, Tick } from '../topics/registry.js';
import type { HistoryStore, TopicHandle } from './store.js';
import { isRecorded } from './topic-record.js';

const SLOT_MS = 10_000;
/** Slots a late timer catches up on; beyond that (a suspended machine) the gap stays. */
const MAX_CATCH_UP = 3;

interface Tracked {
  /** Made on the first value, so a topic that never had one leaves no trace in history. */
  handle: TopicHandle | null;
  /** Start (Unix ms) of the last slot a reading arrived in. */
  lastSlot: number;
}

/** Where recorded readings go besides history (plugins/integration-recorded.ts: `ctx.integration.onRecorded`). */
export interface RecordedSink {
  readonly active: boolean;
  emit(readings: RecordedReading[]): void;
}

export interface RecorderOptions {
  /** Sample at every 10-s boundary on a timer (default true; tests call sample() themselves). */
  sampleTimer?: boolean;
}

export class Recorder {
  private readonly tracked = new Map<TopicState, Tracked>();
  private timer: NodeJS.Timeout | null = null;
  private sampledUpTo = 0;
  private started = false;

  constructor(
    private readonly deps: { registry: TopicRegistry; store: HistoryStore; clock: Clock; feed?: RecordedSink },
    private readonly options: RecorderOptions = {},
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    const { registry, clock } = this.deps;
    for (const state of registry.list()) this.track(state);
    registry.on('definitions', this.onDefinitions);
    registry.on('tick', this.onTick);
    this.sampledUpTo = Math.floor(clock.now() / SLOT_MS) * SLOT_MS;
    if (this.options.sampleTimer ?? true) this.schedule();
  }

  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.deps.registry.off('definitions', this.onDefinitions);
    this.deps.registry.off('tick', this.onTick);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Samples the slots that ended since the last call (up to now): every recorded topic of a
   * live device with a value that had no reading in a slot gets its current value there.
   */
  sample(now = this.deps.clock.now()): void {
    if (!this.started) return;
    // Staleness is otherwise checked on its own timer; a device past its timeout must not
    // get one more slot of its held value just because that timer has not run yet.
    this.deps.registry.checkStale();
    const boundary = Math.floor(now / SLOT_MS) * SLOT_MS;
    const first = Math.max(this.sampledUpTo, boundary - MAX_CATCH_UP * SLOT_MS);
    const fed: RecordedReading[] | null = this.deps.feed?.active ? [] : null;
    for (let slot = first; slot < boundary; slot += SLOT_MS) {
      for (const [state, t] of this.tracked) {
        if (state.stale || typeof state.value !== 'number' || state.updatedAt === 0) continue;
        // Only values that existed during the slot, and only slots before any newer reading.
        if (state.updatedAt >= slot + SLOT_MS || t.lastSlot >= slot) continue;
        this.deps.store.record((t.handle ??= this.deps.store.topic(state.meta)), slot, state.value);
        if (fed && Number.isFinite(state.value)) fed.push({ topic: state.meta.topic, time: slot, value: state.value });
      }
    }
    if (boundary > this.sampledUpTo) this.sampledUpTo = boundary;
    if (fed) this.deps.feed!.emit(fed);
  }

  private readonly onTick = (tick: Tick): void => {
    const slot = Math.floor(tick.time / SLOT_MS) * SLOT_MS;
    const store = this.deps.store;
    const fed: RecordedReading[] | null = this.deps.feed?.active ? [] : null;
    for (const state of tick.readings) {
      const t = this.tracked.get(state);
      if (t === undefined || typeof state.value !== 'number') continue;
      store.record((t.handle ??= store.topic(state.meta)), tick.time, state.value);
      t.lastSlot = slot;
      if (fed && Number.isFinite(state.value))
        fed.push({ topic: state.meta.topic, time: tick.time, value: state.value });
    }
    if (fed) this.deps.feed!.emit(fed);
  };

  private readonly onDefinitions = (added: readonly TopicState[], removed: readonly TopicMeta[]): void => {
    for (const meta of removed) {
      for (const state of this.tracked.keys()) if (state.meta === meta) this.tracked.delete(state);
    }
    for (const state of added) this.track(state);
  };

  private track(state: TopicState): void {
    if (!isRecorded(state.meta)) return;
    this.tracked.set(state, { handle: null, lastSlot: -Infinity });
  }

  private schedule(): void {
    const now = this.deps.clock.now();
    const next = Math.floor(now / SLOT_MS) * SLOT_MS + SLOT_MS;
    this.timer = setTimeout(
      () => {
        this.sample();
        if (this.started) this.schedule();
      },
      next - now + 5,
    );
    this.timer.unref();
  }
}
