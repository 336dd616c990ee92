/**
 * What the plugin host hands on from a plugin's context to the core services. Each service
 * implements its sink; the host binds the calling plugin's instance id, so a service always
 * knows which plugin a value came from (a plugin never names itself).
 */
import type { ForecastRun, PriceProviderDeclaration, PriceSlot } from '@heliograph/plugins-sdk';
import type { TopicMeta } from './topic-meta.js';

/**
 * Readings of one topic in the past: `[Unix ms, value]` pairs, or the same as two columns of
 * equal length (a backfill's form: no object per reading).
 */
export type PastReadings = ReadonlyArray<readonly [time: number, value: number]> | PastColumns;

/** Past readings as columns: `times[i]` (Unix ms) holds `values[i]`. */
export interface PastColumns {
  readonly times: readonly number[];
  readonly values: readonly number[];
}

/** Calls `each` with every reading of `readings`, in order, whichever form they come in. */
export function forEachPast(readings: PastReadings, each: (time: number, value: number) => void): void {
  if ('times' in readings) {
    for (let i = 0; i < readings.times.length; i++) each(readings.times[i]!, readings.values[i]!);
  } else for (const [time, value] of readings) each(time, value);
}

/** History: readings of the past, for backfill (`ctx.topics.record`). */
export interface HistorySink {
  /** Records the series of several topics, written in one go: on disk when the promise resolves. */
  recordPastSeries(series: Iterable<readonly [TopicMeta, PastReadings]>): Promise<void>;
}

/** The ForecastStore, fed by `ctx.forecast.publish`. */
export interface ForecastSink {
  /** A source of forecasts: forecasts are now enabled. Returns a disposer. */
  register(source: string): () => void;
  /** A run marked `demo` gives way to real forecasts (see the SDK's ForecastApi). */
  publish(source: string, run: ForecastRun): void;
  /** Drops the plan series `source` published (it stopped). */
  dropPlans(source: string): void;
}

/** The PriceBook, fed by `ctx.prices.declare` / `ctx.prices.publish`. */
export interface PriceSink {
  /** A declaration marked `demo` gives way to real providers (see the SDK's PricesApi). */
  declare(source: string, args: PriceProviderDeclaration): () => void;
  publish(source: string, schedule: { import: PriceSlot[]; export?: PriceSlot[]; standing?: PriceSlot[] }): void;
}
