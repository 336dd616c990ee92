/*
 * `ctx.site`: what every plugin may read of the site (topics, prices, forecasts, history)
 * and its one way to change it (a setting written through the core's write path). The same
 * API in-process and in a process of its own. Re-exported from the SDK's main entry.
 */
import type { Disposer, MetricValue, SiteInfo } from './basics.js';
import type { TopicDefinition } from './integration.js';
import type { SiteWriteValue } from './topics.js';

/**
 * Topic globs as the API defines them: `*` any run of characters including `/`, `?` one
 * character (the WebSocket's filter, `GET /api/v1/metrics?topic=`). Several globs select
 * what any of them selects.
 *
 * @example
 * const filter: TopicFilter = ['total/*', 'inverter_1/battery_*'];
 */
export type TopicFilter = string | readonly string[];

/**
 * What {@link SiteApi.subscribe} takes.
 *
 * @example
 * { filter: 'total/*', onValues: (values, { time }) => console.log(time, values['total/pv_power']) }
 */
export interface SiteSubscribeOptions {
  /** Default: every topic. */
  filter?: TopicFilter;
  /**
   * First the current value of every selected topic (in one call; none while no topic
   * matches), then each registry tick's changes (one call per tick: everything one poll
   * changed, totals included), and the values of matching topics declared later. Values are
   * what clients see: `null` while a device is stale or unavailable. What it throws is logged.
   * `time` is the newest value's (the tick's time).
   */
  onValues(values: Record<string, MetricValue>, tick: { time: number }): void;
}

/**
 * One slot of the price book as `GET /api/v1/grid` serves it: from the start of the current
 * local day to the last one published, with the site's price multiplier and offset applied.
 * Ranks count within the slot's local day: import rank 1 is the cheapest slot, export
 * rank 1 the best paid.
 *
 * @example
 * { start: 1763805600000, end: 1763806500000, importPrice: 0.2312, importRank: 3, importPremium: 0.012,
 *   exportPrice: 0.071, exportRank: 40, exportPremium: -0.004 }
 */
export interface SitePriceSlot {
  /** Unix ms, inclusive. */
  start: number;
  /** Unix ms, exclusive. */
  end: number;
  /** Currency per kWh (the grid answer's `price` or `import_price`). */
  importPrice: number;
  importRank: number;
  /** How far above the day's cheapest slot. */
  importPremium: number;
  /** Null when the provider publishes no export prices (or none for this slot). */
  exportPrice: number | null;
  exportRank: number | null;
  exportPremium: number | null;
}

/**
 * The active price provider (see the SDK's PricesApi) and what it published.
 *
 * @example
 * const { currency, slots } = await ctx.site.prices();
 * const cheapest = slots.filter((s) => s.importRank <= 4);
 */
export interface SitePrices {
  /** Null when no price plugin runs. */
  provider: string | null;
  /** ISO 4217 code; null without prices. */
  currency: string | null;
  /** Empty before the first prices are published, or when the provider has no dynamic prices. */
  slots: SitePriceSlot[];
  /**
   * Whether the provider's prices can be trusted (the grid answer's `status`): `failed` while
   * its plugin fails (`message` the reason), `stale` when its slots end within the hour or
   * it has published none yet (`message` says which), else `ok`; `lastData` (Unix ms) is its last publish. Absent
   * without a provider of dynamic prices, and from a core older than this field.
   *
   * @example
   * { state: 'failed', message: 'job refresh failed: ENTSO-E answered 503', lastData: 1763805600000 }
   */
  status?: SitePriceStatus;
}

/** See {@link SitePrices.status}. */
export interface SitePriceStatus {
  state: 'ok' | 'failed' | 'stale';
  message: string | null;
  /** Unix ms of the provider's last publish; null before its first. */
  lastData: number | null;
}

/**
 * What {@link SiteApi.forecast} takes.
 *
 * @example
 * { topic: 'weather/pv_power_predicted', fromMs: ctx.now(), toMs: ctx.now() + 86_400_000 }
 */
export interface SiteForecastQuery {
  /** A forecast topic (`weather/...`); default `weather/pv_power_predicted`. */
  topic?: string;
  /** Default now. */
  fromMs?: number;
  /** Default four days after `fromMs`'s now, which covers the whole stored forecast. */
  toMs?: number;
}

/**
 * What {@link SiteApi.history} takes, as `GET /api/v1/history` does.
 *
 * @example
 * { topic: 'total/load_power', fromMs: ctx.now() - 7 * 86_400_000, toMs: ctx.now(), groupBy: '1h', agg: 'mean' }
 */
export interface SiteHistoryQuery {
  /** One recorded topic; no globs. */
  topic: string;
  fromMs: number;
  toMs: number;
  /** Bucket size: a number and `s`, `m`, `h` or `d`; default and minimum `10s`. */
  groupBy?: string;
  /** How values in a bucket combine; default `mean`. */
  agg?: 'mean' | 'max' | 'min' | 'sum' | 'last';
}

/**
 * One point of a series: `time` in Unix ms (a bucket's or a quarter hour's start).
 *
 * @example
 * { time: 1763805600000, value: 1520 }
 */
export interface SitePoint {
  time: number;
  value: number;
}

/**
 * A write to a setting, by anyone (a client over REST or the WebSocket, a plugin), as the
 * audit log keeps it.
 *
 * @example
 * { topic: 'inverter_1/battery_control_mode', value: 'Charge', via: 'rest', who: 'admin',
 *   at: 1763805600000, result: 'ok', message: null }
 */
export interface SiteWrite {
  topic: string;
  /** The value as written (text, as the API takes it). */
  value: string;
  /** `rest`, `ws`, or the id of the plugin that wrote (`mqtt`, `planner`). */
  via: string;
  /** `admin`, a token's name, or `plugin:<instance id>`. */
  who: string;
  /** Unix ms. */
  at: number;
  result: 'ok' | 'error';
  /** Why it was refused or failed; null when it succeeded. */
  message: string | null;
  /**
   * True when the device's own driver wrote it (SDK 1.3: ending a forced battery command at its
   * start or stop), not a person or another plugin: a planner does not pause for it.
   */
  byDriver?: boolean;
}

export type { SettingsTogether, SiteWriteValue } from './topics.js';

/**
 * `ctx.site`: the site's settings (time zone, position, temperature unit) and typed access
 * to everything clients of the API see, for every plugin, in-process or in a process of its own.
 * Reads are answered by the running server (never a copy taken at start); subscriptions and
 * write listeners end by themselves when the plugin stops.
 *
 * @example
 * const soc = (await ctx.site.values({ filter: 'total/battery_state_of_charge' }))['total/battery_state_of_charge'];
 * const { slots } = await ctx.site.prices();
 * const pv = await ctx.site.forecast({ toMs: ctx.now() + 86_400_000 });
 * if (typeof soc === 'number' && soc < 30 && slots[0]?.importRank === 1)
 *   await ctx.site.write({ topic: 'inverter_1/battery_control_mode', value: 'Charge' });
 */
export interface SiteApi extends SiteInfo {
  /** Every topic there is now, by topic ascending: what `GET /api/v1/metrics?discovery` describes. */
  definitions(): Promise<TopicDefinition[]>;
  /** Current values of the topics the filter selects (default all), as the snapshot shows them. */
  values(args?: { filter?: TopicFilter }): Promise<Record<string, MetricValue>>;
  /** Values of the selected topics now and at every tick that changes one of them. */
  subscribe(options: SiteSubscribeOptions): Disposer;
  /** The price book of the active price provider, as `GET /api/v1/grid` serves it. */
  prices(): Promise<SitePrices>;
  /**
   * A forecast's points at 15-minute resolution (nulls left out). Empty while no forecast
   * plugin runs or none has published the topic yet; throws for a topic that is not a
   * forecast topic.
   */
  forecast(query?: SiteForecastQuery): Promise<SitePoint[]>;
  /**
   * A recorded topic's history in buckets (buckets without data left out), all pages.
   * Throws the API's message for a topic history does not record, a bad `groupBy`, or a
   * server running without history.
   */
  history(query: SiteHistoryQuery): Promise<SitePoint[]>;
  /**
   * Writes a setting through the core's write path: validated against its declaration,
   * handed to the owning plugin, rate limited, and audited with `via` = this plugin's id and
   * `who` = `plugin:<instance id>`. Resolves once the device confirmed; throws an Error with
   * the message the API would answer (`value "200" is not allowed; ...`, `the device refused: ...`).
   * A switch takes `true`/`false` as well as its on/off text. Writes to one topic run one
   * at a time, so never await a write of a topic from inside that topic's own handler.
   *
   * Typed values keep their type (SDK 1.4): a number for a range, an option's value (as
   * declared) or its label for options, a boolean for a switch; text is parsed as the API does.
   *
   * `together` (SDK 1.4) writes other settings of the same device with this one, by setting
   * name: every part is validated against its declaration and granted, or the whole write is
   * refused and nothing reaches the device; it takes one rate-limit token, makes one audit
   * entry under `topic` (its value in words, `Charge, 3000 W, 90 %`), and calls `topic`'s
   * handler once with the companions' values as `together` (their own handlers are not
   * called); the companions' shown values update with it. A core older than 1.4 ignores it.
   *
   * @example
   * await ctx.site.write({
   *   topic: 'inverter_1/battery_control_mode',
   *   value: 'charge',
   *   together: { battery_control_power: 3000, battery_control_target_soc: 90 },
   * });
   */
  write(args: { topic: string; value: SiteWriteValue; together?: Record<string, SiteWriteValue> }): Promise<void>;
  /** Every write attempt from now on, refused ones included, whoever made it (this plugin too). */
  onWrite(args: { filter?: TopicFilter; handler(write: SiteWrite): void }): Disposer;
}

/**
 * A {@link SiteApi} for a host that serves only the site's settings (a bare test context):
 * every read, write and subscription throws `ctx.site: <reason>`.
 *
 * @example
 * const site = unavailableSite({ timeZone: 'UTC', latitude: 0, longitude: 0, temperatureUnit: 'C' }, 'not in this test');
 */
export function unavailableSite(info: SiteInfo, reason: string): SiteApi {
  const fail = (): never => {
    throw new Error(`ctx.site: ${reason}`);
  };
  const reject = () => Promise.reject(new Error(`ctx.site: ${reason}`));
  return {
    ...info,
    definitions: reject,
    values: reject,
    subscribe: fail,
    prices: reject,
    forecast: reject,
    history: reject,
    write: reject,
    onWrite: fail,
  };
}
