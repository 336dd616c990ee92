/**
 * What the plugin host hands on from a plugin's context to the core services. Each service
 * implements its sink; the host binds the calling plugin's instance id, so a service always
 * knows which plugin a value came from (a plugin never names itself).
 */
import type { ForecastPoints, ForecastTopic, PriceSlot } from '@heliograph/plugins-sdk';
import type { TopicMeta } from '../topics/registry.js';

/** Readings of one topic in the past: `[Unix ms, value]`. */
export type PastReadings = ReadonlyArray<readonly [time: number, value: number]>;

/** History: readings of the past, for backfill (`ctx.topics.record`). */
export interface HistorySink {
  /** Records the series of several topics, written in one go: on disk when the promise resolves. */
  recordPastSeries(series: Iterable<readonly [TopicMeta, PastReadings]>): Promise<void>;
}

/** The ForecastStore, fed by `ctx.forecast.publish`. */
export interface ForecastSink {
  /**
   * A source of forecasts: forecasts are now enabled. `dedicated` is a forecast plugin (not,
   * say, the simulator's demo forecast): it takes a topic over from a source that is not.
   * Returns a disposer.
   */
  register(source: string, options?: { dedicated?: boolean }): () => void;
  publish(source: string, run: { series: Partial<Record<ForecastTopic, ForecastPoints>>; fetchedAt?: number }): void;
}

/** The PriceBook, fed by `ctx.prices.declare` / `ctx.prices.publish`. */
export interface PriceSink {
  /** `dedicated` is a price plugin (not, say, the simulator's demo prices): it is preferred as the active provider. */
  declare(
    source: string,
    args: { provider: string; currency?: string; scheduleType: 'pricing' | 'import_export_pricing' | 'none' },
    options?: { dedicated?: boolean },
  ): () => void;
  publish(source: string, schedule: { import: PriceSlot[]; export?: PriceSlot[] }): void;
}
