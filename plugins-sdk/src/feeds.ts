/*
 * `ctx.forecast` and `ctx.prices`: the forecasts and price schedules a provider plugin feeds
 * into the core. Re-exported from the SDK's main entry.
 */
import type { Disposer } from './basics.js';

/**
 * One forecast series: `[Unix ms, value]` pairs at 15-minute resolution. A point at T stands
 * for the quarter hour [T, T+15 min); a value of `null` means the model has none for it.
 *
 * @example
 * const pv: ForecastPoints = [[Date.parse('2026-11-22T10:00:00Z'), 1520], [Date.parse('2026-11-22T10:15:00Z'), null]];
 */
export type ForecastPoints = Array<[time: number, value: number | null]>;

/**
 * The weather topics a forecast plugin can publish (each becomes `weather/<name>`). Units:
 * W for PV power, the site's unit for temperature, WMO code, 0/1, %, km/h, W/m².
 *
 * @example
 * const topic: ForecastTopic = 'outside_temperature'; // published as weather/outside_temperature
 */
export type ForecastTopic =
  | 'pv_power_predicted'
  | 'outside_temperature'
  | 'weather_code'
  | 'is_day'
  | 'cloud_cover'
  | 'wind_speed'
  | 'global_tilted_irradiance';

/**
 * Feeds the core's ForecastStore. Each publish is one model run: it replaces the stored
 * points in the range it covers.
 *
 * `demo: true` declares the run made-up data (the simulator's demo outlook): it fills a
 * topic only until a real forecast arrives for it, and never takes a topic from a real one.
 * Between two real (or two demo) sources, the first to publish a topic keeps it.
 *
 * @example
 * ctx.forecast.publish({ series: { pv_power_predicted: [[Date.parse('2026-11-22T10:00:00Z'), 1520]] } });
 * ctx.forecast.publish({ series: demoSeries, demo: true }); // gives way to a forecast plugin
 */
export interface ForecastApi {
  publish(args: ForecastRun): void;
}

/**
 * One future series of a plugin's own topic; see {@link ForecastRun.plan}.
 *
 * @example
 * { topic: 'planner/soc_planned', name: 'Planned state of charge', unit: '%', points: [[Date.parse('2026-11-22T10:00:00Z'), 55]] }
 */
export interface PlanSeries {
  /** `<device>/<name>`, lower snake case; never `weather/...`. */
  topic: string;
  name: string;
  unit: string;
  /** Quarter-hour starts, as the weather series. */
  points: ForecastPoints;
}

/** One forecast run as a plugin publishes it; see {@link ForecastApi}. */
export interface ForecastRun {
  series: Partial<Record<ForecastTopic, ForecastPoints>>;
  /**
   * Future series of the plugin's own topics (a planner's `planner/soc_planned`), served by
   * `GET /api/v1/forecast` beside the weather topics. Each run replaces a series' points
   * entirely; a run with only `plan` does not make the plugin a weather forecast source.
   */
  plan?: PlanSeries[];
  /** When the provider produced it (Unix ms); default now. */
  fetchedAt?: number;
  /** Made-up data that gives way to any real forecast; default false. */
  demo?: boolean;
}

/**
 * One price slot; `price` in currency per kWh as the provider publishes it, before the core's
 * multiplier and offset. For export prices, positive means the user is paid. A `standing`
 * charge slot (see {@link PricesApi.publish}) holds the charge for the whole slot instead.
 *
 * @example
 * const slot: PriceSlot = { start: Date.parse('2026-11-22T10:00:00Z'), end: Date.parse('2026-11-22T10:15:00Z'), price: 0.2002 };
 */
export interface PriceSlot {
  /** Unix ms, inclusive. */
  start: number;
  /** Unix ms, exclusive. */
  end: number;
  price: number;
}

/**
 * Feeds the core's PriceBook. Declare the provider once in setup, then publish schedules.
 *
 * Of several declared providers the grid API shows one, the active provider: a real one
 * before any declared `demo`, and among those the first declared that has published slots
 * (the first declared while none has). The others stay on standby.
 *
 * @example
 * ctx.prices.declare({ provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
 * ctx.prices.publish({ import: [{ start, end: start + 3_600_000, price: 0.2002 }] });
 */
export interface PricesApi {
  /**
   * Names the provider and what it publishes. `scheduleType: 'none'` means a provider
   * without dynamic prices (the grid API then answers `pricing: null`).
   */
  declare(args: PriceProviderDeclaration): Disposer;
  /**
   * Replaces the slots it covers (each list on its own); `export` only for
   * `import_export_pricing`.
   *
   * `standing`: the standing charge (daily fixed charge), one slot per local day or any span,
   * its `price` the charge for the whole slot in the currency (not per kWh). The core's
   * multiplier and offset are not applied to it; `GET /api/v1/grid` shows the current local
   * day's as `standing_charge`. Omit it when the tariff has none.
   *
   * @example
   * const day = localDays({ now: ctx.now(), zone: ctx.site.timeZone });
   * ctx.prices.publish({
   *   import: [{ start: day.todayStart, end: day.tomorrowStart, price: 0.2516 }],
   *   standing: [{ start: day.todayStart, end: day.tomorrowStart, price: 0.45 }], // 0.45 a day
   * });
   */
  publish(args: { import: PriceSlot[]; export?: PriceSlot[]; standing?: PriceSlot[] }): void;
}

/** What `ctx.prices.declare` takes; see {@link PricesApi}. */
export interface PriceProviderDeclaration {
  /** Shown as the grid API's `provider`, e.g. `aWATTar`. */
  provider: string;
  /** ISO 4217 code; required unless `scheduleType` is `none`. */
  currency?: string;
  scheduleType: 'pricing' | 'import_export_pricing' | 'none';
  /** Made-up prices (the simulator's demo) that give way to any real price plugin; default false. */
  demo?: boolean;
}
