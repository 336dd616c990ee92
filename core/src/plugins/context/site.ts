/*
 * `ctx.site` of one plugin instance (see the SDK's SiteApi): the site's settings, reads of
 * what the API serves (topics, prices, forecasts, history), and writes through the one
 * write path, audited with the plugin's id as `via`. A worker-isolated plugin gets the same
 * object on the host's side; its worker forwards each call here.
 */
import type {
  Disposer,
  MetricValue,
  SiteApi,
  SiteInfo,
  SitePoint,
  SitePrices,
  SiteWrite,
  TopicFilter,
} from '@heliograph/plugins-sdk';
import { recordedMeta } from '../../history/recorded-meta.js';
import type { GridSchedule } from '../../grid/schedule.js';
import type { Clock } from '../../clock.js';
import type { ForecastStore } from '../../forecast/store.js';
import { FORECAST_TOPICS } from '../../forecast/store.js';
import { AGGS, isAgg, parseGroupBy } from '../../history/params.js';
import type { Agg } from '../../history/slots.js';
import type { HistoryStore } from '../../history/store.js';
import type { Logger } from '../../log.js';
import { compileGlob } from '../../topics/glob.js';
import type { TopicRegistry } from '../../topics/registry.js';
import type { AuditEntry } from '../../writes/audit.js';
import type { WriteService } from '../../writes/service.js';
import { GrantMissingError } from '../instances/grants.js';
import { definitionOf } from './integration.js';
import { IntegrationSubscription } from './integration-subscription.js';

const FORECAST_DEFAULT_SPAN_MS = 4 * 86_400_000;

/** One history query as `ctx.site.history` hands it on: parsed, in ms. */
export interface SiteHistoryRead {
  topic: string;
  fromMs: number;
  toMs: number;
  groupMs: number;
  agg: Agg;
}

/** What `ctx.site` reads besides the registry; a host without one of them says so when asked. */
export interface SiteReaders {
  prices?: { schedule(): GridSchedule };
  forecast?: Pick<ForecastStore, 'lookup' | 'points'>;
  /** Buckets with data, all pages; throws the API's message for a topic history does not record. */
  history?: { read(query: SiteHistoryRead): Promise<SitePoint[]> };
}

export interface SiteApiOptions {
  info: SiteInfo;
  /** The plugin's id: the audit's `via` of its writes. */
  pluginId: string;
  /** The instance's id: the audit's `who` is `plugin:<instance id>`. */
  instanceId: string;
  registry: TopicRegistry;
  writes: WriteService;
  clock: Clock;
  readers: SiteReaders;
  /** Keeps a registration so the instance's stop undoes it. */
  track: (dispose: Disposer) => Disposer;
  log: Logger;
  /** The refusal's sentence when the instance's grants do not cover writing `topic` (already reported). */
  refusedWrite?: (topic: string) => string | undefined;
}

/** `ctx.site` of one plugin instance. */
export function siteApi(options: SiteApiOptions): SiteApi {
  const { info, pluginId, instanceId, registry, writes, clock, readers, track, log } = options;
  return {
    ...info,
    definitions: () => Promise.resolve(registry.list().map((state) => definitionOf(state.meta))),
    values: ({ filter } = {}) => {
      const matchers = globs(filter).map(compileGlob);
      const values: Record<string, MetricValue> = {};
      for (const state of registry.list())
        if (matchers.some((m) => m.test(state.meta.topic))) values[state.meta.topic] = registry.visibleValue(state);
      return Promise.resolve(values);
    },
    subscribe: (options) => {
      const subscription = new IntegrationSubscription(
        registry,
        clock,
        {
          filter: globs(options.filter),
          onValues: (updates) => {
            const values: Record<string, MetricValue> = {};
            let time = 0;
            for (const u of updates) {
              values[u.topic] = u.value;
              if (u.time > time) time = u.time;
            }
            options.onValues(values, { time });
          },
        },
        log,
      );
      return track(subscription.start());
    },
    prices: () => {
      if (!readers.prices) return Promise.reject(new Error('ctx.site.prices: this host has no price book'));
      return Promise.resolve(pricesOf(readers.prices.schedule()));
    },
    // Async, so a bad topic rejects rather than throws (a worker's call waits for an answer).
    // eslint-disable-next-line @typescript-eslint/require-await
    forecast: async ({ topic = 'weather/pv_power_predicted', fromMs, toMs } = {}) => {
      const from = fromMs ?? clock.now();
      return forecastPoints(readers.forecast, topic, from, toMs ?? from + FORECAST_DEFAULT_SPAN_MS);
    },
    history: async ({ topic, fromMs, toMs, groupBy = '10s', agg = 'mean' }) => {
      if (!readers.history) throw new Error('history is unavailable: this server runs without history');
      const group = parseGroupBy(groupBy);
      if ('error' in group) throw new Error(group.error.replace('group_by', 'groupBy'));
      if (!isAgg(agg)) throw new Error(`agg must be one of ${AGGS.join(', ')}`);
      if (!(fromMs < toMs)) throw new Error(`fromMs must be before toMs, got ${fromMs} and ${toMs}`);
      return readers.history.read({ topic, fromMs, toMs, groupMs: group.ms, agg });
    },
    write: async ({ topic, value, together }) => {
      // Each part must be granted: the companions are settings of the same device.
      const device = topic.split('/')[0]!;
      for (const t of [topic, ...Object.keys(together ?? {}).map((name) => `${device}/${name}`)]) {
        const refused = options.refusedWrite?.(t);
        if (refused) throw new GrantMissingError(refused);
      }
      // The typed value as it is (SDK 1.4): the write path validates it without a text round trip.
      const outcome = await writes.write({
        topic,
        value,
        ...(together ? { together } : {}),
        who: `plugin:${instanceId}`,
        via: pluginId,
        controller: instanceId,
      });
      if (!outcome.ok) throw new Error(outcome.message);
    },
    onWrite: (args) => {
      const matchers = globs(args.filter).map(compileGlob);
      const listener = (entry: AuditEntry) => {
        if (!matchers.some((m) => m.test(entry.topic))) return;
        try {
          args.handler(siteWriteOf(entry));
        } catch (err) {
          log.error('the onWrite handler threw', { err });
        }
      };
      writes.events.on('written', listener);
      return track(() => writes.events.off('written', listener));
    },
  };
}

function globs(filter: TopicFilter | undefined): string[] {
  return filter === undefined ? ['*'] : typeof filter === 'string' ? [filter] : [...filter];
}

function siteWriteOf(entry: AuditEntry): SiteWrite {
  return {
    topic: entry.topic,
    value: entry.newValue,
    via: entry.via,
    who: entry.who,
    at: entry.time,
    result: entry.result,
    message: entry.message,
    byDriver: entry.byDriver === true,
  };
}

/** The price book's schedule as plugins read it: the same slots, `currency` null without prices. */
export function pricesOf(schedule: GridSchedule): SitePrices {
  const { provider, pricing, status } = schedule;
  if (!pricing) return { provider, currency: null, slots: [] };
  return { provider, currency: pricing.currency, slots: pricing.slots, ...(status ? { status } : {}) };
}

function forecastPoints(store: SiteReaders['forecast'], topic: string, from: number, to: number): SitePoint[] {
  if (!FORECAST_TOPICS.includes(topic))
    throw new Error(`${topic} is not a forecast topic; the forecast topics are ${FORECAST_TOPICS.join(', ')}`);
  if (!store || store.lookup(topic).kind !== 'found') return [];
  return store.points(topic, from, to).map(([time, value]) => ({ time, value }));
}

/** More pages than this (2000 buckets each) is a mistake of the asking plugin, not a query to run. */
const MAX_HISTORY_PAGES = 50;

/** `ctx.site.history` over the server's HistoryStore: the API's checks and messages, all pages. */
export function storeHistoryReader(registry: TopicRegistry, store: HistoryStore): SiteReaders['history'] {
  return {
    read: async ({ topic, fromMs, toMs, groupMs, agg }) => {
      recordedMeta(registry, store, topic);
      const points: SitePoint[] = [];
      for (let from = fromMs, pages = 0; ; pages++) {
        if (pages === MAX_HISTORY_PAGES)
          throw new Error(
            `history of ${topic}: more than ${MAX_HISTORY_PAGES * 2000} buckets asked for; use a larger groupBy or a shorter range`,
          );
        const page = await store.query(topic, { fromMs: from, toMs, groupMs, agg });
        const { buckets } = page;
        for (let b = 0; b < buckets.n; b++)
          if (buckets.count[b] !== 0) points.push({ time: buckets.timeMs(b), value: buckets.value(b, agg) });
        if (page.nextMs === undefined) return points;
        from = page.nextMs;
      }
    },
  };
}
