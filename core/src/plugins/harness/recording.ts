/*
 * What the plugin harness keeps for the test to read: the plugin's declarations, log lines,
 * store, forecasts, price schedules and past readings. Each is recorded on its way to the
 * core service that handles it (the sinks, the store, the topics API), after that service
 * accepted it: the rules are the core's, the harness only watches.
 */
import type { DeviceDeclaration, ForecastRun, PluginContext } from '@heliograph/plugins-sdk';
import type { RecordedPrices } from '@heliograph/plugins-sdk/testing';
import type { Logger } from '../../log.js';
import type { Agg } from '../../history/slots.js';
import { recordedMeta } from '../../history/recorded-meta.js';
import { metaFromTopic } from '../../history/topic-record.js';
import type { TopicRegistry } from '../../topics/registry.js';
import type { SiteReaders } from '../context/site.js';
import type { ForecastSink, HistorySink, PriceSink } from '../../topics/sinks.js';
import { forEachPast } from '../../topics/sinks.js';

export class Recording {
  readonly declarations = new Map<string, DeviceDeclaration>();
  readonly logs: string[] = [];
  /** The plugin's store as last written (the store itself is the core's, in SQLite). */
  readonly store: Map<string, unknown>;
  readonly forecasts: ForecastRun[] = [];
  readonly prices: RecordedPrices = { schedules: [] };
  /** Past readings that reached history (`ctx.topics.record`), by topic. */
  readonly recorded = new Map<string, Array<[time: number, value: number]>>();

  /** Log lines `level: message {fields}`, kept rather than printed. */
  readonly logger: Logger = {
    debug: (message, fields) => this.log('debug', message, fields),
    info: (message, fields) => this.log('info', message, fields),
    warn: (message, fields) => this.log('warn', message, fields),
    error: (message, fields) => this.log('error', message, fields),
  };

  /** History: what `ctx.topics.record` would write, in memory. */
  readonly history: HistorySink = {
    recordPastSeries: (series) => {
      for (const [meta, readings] of series) {
        let list = this.recorded.get(meta.topic);
        if (!list) this.recorded.set(meta.topic, (list = []));
        forEachPast(readings, (time, value) => list.push([time, value]));
      }
      return Promise.resolve();
    },
  };

  /**
   * `ctx.site.history` over the readings recorded here: the server's checks (a topic not
   * recorded is refused with the API's message), buckets aligned to the epoch as history's.
   */
  historyReader(registry: TopicRegistry): NonNullable<SiteReaders['history']> {
    return {
      read: ({ topic, fromMs, toMs, groupMs, agg }) => {
        recordedMeta(registry, { describe: (t) => (this.recorded.has(t) ? metaFromTopic(t) : undefined) }, topic);
        const buckets = new Map<number, number[]>();
        for (const [time, value] of this.recorded.get(topic) ?? []) {
          if (time < fromMs || time >= toMs) continue;
          const start = Math.floor(time / groupMs) * groupMs;
          const bucket = buckets.get(start);
          if (bucket) bucket.push(value);
          else buckets.set(start, [value]);
        }
        return Promise.resolve(
          [...buckets.entries()]
            .sort(([a], [b]) => a - b)
            .map(([time, values]) => ({ time, value: aggregate(values, agg) })),
        );
      },
    };
  }

  constructor(initialStore: Record<string, unknown>) {
    this.store = new Map(Object.entries(initialStore));
  }

  /** The core's ForecastStore, keeping each run it took. */
  forecastSink(store: ForecastSink): ForecastSink {
    return {
      register: (source) => store.register(source),
      publish: (source, run) => {
        store.publish(source, run);
        this.forecasts.push(run);
      },
      dropPlans: (source) => store.dropPlans(source),
    };
  }

  /** The core's PriceBook, keeping the provider while declared and each schedule it took. */
  priceSink(book: PriceSink): PriceSink {
    return {
      declare: (source, args) => {
        const undo = book.declare(source, args);
        this.prices.provider = args;
        return () => {
          undo();
          this.prices.provider = undefined;
        };
      },
      publish: (source, schedule) => {
        book.publish(source, schedule);
        this.prices.schedules.push(schedule);
      },
    };
  }

  /** The context the core built, with its declarations and store writes watched. */
  observe(ctx: PluginContext): PluginContext {
    const { topics, store } = ctx;
    const watched = ctx as { topics: PluginContext['topics']; store: PluginContext['store'] };
    watched.topics = {
      ...topics,
      declare: (declaration) => {
        const undo = topics.declare(declaration);
        this.declarations.set(declaration.device, declaration);
        return () => {
          undo();
          if (this.declarations.get(declaration.device) === declaration) this.declarations.delete(declaration.device);
        };
      },
    };
    watched.store = {
      get: (key) => store.get(key),
      set: async (key, value) => {
        await store.set(key, value);
        this.store.set(key, JSON.parse(JSON.stringify(value)) as unknown);
      },
      delete: async (key) => {
        await store.delete(key);
        this.store.delete(key);
      },
    };
    return ctx;
  }

  private log(level: string, message: string, fields?: Record<string, unknown>): void {
    this.logs.push(`${level}: ${message}${fields ? ' ' + JSON.stringify(fields) : ''}`);
  }
}

/** What one of history's aggregations makes of a bucket's readings, in time order. */
function aggregate(values: number[], agg: Agg): number {
  switch (agg) {
    case 'mean':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'sum':
      return values.reduce((a, b) => a + b, 0);
    case 'max':
      return Math.max(...values);
    case 'min':
      return Math.min(...values);
    case 'last':
      return values.at(-1)!;
  }
}
