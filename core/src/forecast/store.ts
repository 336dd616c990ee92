import type { ForecastPoints, ForecastRun, ForecastTopic, PlanSeries } from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import { createLogger } from '../log.js';
import type { ForecastSink } from '../topics/sinks.js';
import type { TopicMeta, TopicRegistry, TopicState } from '../topics/registry.js';
import { roundTo } from '../numbers.js';
import { deviceFields } from '../topics/device.js';
import { QUARTER_HOUR_MS, floorToQuarterHour } from './quarter-hours.js';

const log = createLogger('forecast');

/** How much past forecast is kept: the spec's "about 48 hours". */
export const FORECAST_PAST_KEPT_MS = 48 * 3_600_000;

interface TopicSpec {
  name: ForecastTopic;
  displayName: string;
  unit: string;
}

/** The seven forecast topics, with their units from the spec's table. */
const TOPIC_SPECS: readonly TopicSpec[] = [
  { name: 'pv_power_predicted', displayName: 'PV power predicted', unit: 'W' },
  { name: 'outside_temperature', displayName: 'Outside temperature', unit: '°C' },
  { name: 'weather_code', displayName: 'Weather code', unit: 'WMO code' },
  { name: 'is_day', displayName: 'Is day', unit: '' },
  { name: 'cloud_cover', displayName: 'Cloud cover', unit: '%' },
  { name: 'wind_speed', displayName: 'Wind speed', unit: 'km/h' },
  { name: 'global_tilted_irradiance', displayName: 'Global tilted irradiance', unit: 'W/m2' },
];

/** `weather/pv_power_predicted` and the six others. */
export const FORECAST_TOPICS: readonly string[] = TOPIC_SPECS.map((s) => `weather/${s.name}`);

/** One topic's stored forecast: points sorted by time, each covering [time, time + 15 min). */
interface Series {
  readonly meta: TopicMeta;
  /** The source (plugin instance) whose runs feed this topic. */
  source: string;
  /** Its latest run was declared demo data: a real forecast may take the topic over. */
  demo: boolean;
  times: number[];
  values: number[];
  lastUpdated: number;
  state: TopicState;
  undefine: () => void;
}

/** What {@link ForecastStore.lookup} finds for a topic. */
export type ForecastLookup =
  | { kind: 'disabled' }
  | { kind: 'not-forecast' }
  | { kind: 'not-fetched' }
  | { kind: 'not-published'; published: string[] }
  | { kind: 'found'; meta: TopicMeta; lastUpdated: number };

export interface ForecastStoreOptions {
  registry: TopicRegistry;
  clock: Clock;
  /** The site's temperature unit: forecast plugins publish in it, so it is the topic's unit. */
  temperatureUnit: 'C' | 'F';
}

/**
 * The weather forecast: 15-minute points per weather/* topic, fed by forecast plugins.
 *
 * A run replaces the stored points of the range it covers (a newer model run is better
 * everywhere it speaks) and keeps the rest; points older than 48 hours are dropped. Each
 * topic is defined in the registry when its first run arrives (a PV-only provider such as
 * Forecast.Solar then adds no empty weather topics), and its live value is the forecast for
 * the current quarter hour, moved on at every quarter-hour boundary.
 *
 * When two sources publish the same topic, the first to publish it keeps it, so two
 * providers never overwrite each other in turn; only a run declared `demo` (the simulator's
 * outlook) gives way to a real one, which then replaces it entirely.
 *
 * Temperatures arrive in the site's unit: plugins read `ctx.site.temperatureUnit` and ask
 * their provider for it, so the store only labels weather/outside_temperature °C or °F.
 */
export class ForecastStore implements ForecastSink {
  private readonly series = new Map<ForecastTopic, Series>();
  /** Registered sources and how many registrations each holds. */
  private readonly sources = new Map<string, number>();
  private readonly ignoredWarned = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private liveSlot = Number.NaN;
  /** Plan series by topic (`planner/soc_planned`): a plugin's own future values, no live topic. */
  private readonly plans = new Map<
    string,
    { source: string; meta: TopicMeta; points: Array<[number, number]>; lastUpdated: number }
  >();

  constructor(private readonly options: ForecastStoreOptions) {}

  /**
   * The site's temperature unit changed (applied without a restart). The stored outside
   * temperatures are in the old unit, so that topic is dropped; the next forecast run
   * (forecast plugins restart with the new `ctx.site` and fetch at once) defines it again
   * labelled with the new unit.
   */
  setTemperatureUnit(unit: 'C' | 'F'): void {
    if (unit === this.options.temperatureUnit) return;
    this.options.temperatureUnit = unit;
    const series = this.series.get('outside_temperature');
    if (series) {
      series.undefine();
      this.series.delete('outside_temperature');
    }
  }

  register(source: string): () => void {
    this.sources.set(source, (this.sources.get(source) ?? 0) + 1);
    let disposed = false;
    return () => {
      if (disposed) return;
      disposed = true;
      const left = (this.sources.get(source) ?? 1) - 1;
      if (left > 0) {
        this.sources.set(source, left);
        return;
      }
      this.sources.delete(source);
      for (const [name, series] of this.series) {
        if (series.source !== source) continue;
        series.undefine();
        this.series.delete(name);
      }
    };
  }

  publish(source: string, run: ForecastRun): void {
    const fetchedAt = run.fetchedAt ?? this.options.clock.now();
    if (Array.isArray(run.plan)) for (const plan of run.plan) this.publishPlan(source, plan, fetchedAt);
    const demo = run.demo ?? false;
    for (const [name, points] of Object.entries(run.series) as Array<[ForecastTopic, ForecastPoints | undefined]>) {
      if (!points || points.length === 0) continue;
      const spec = TOPIC_SPECS.find((s) => s.name === name);
      if (!spec) {
        this.warnOnce(
          `${source}:${name}`,
          `forecast topic "${name}" from ${source} is not a known weather topic; ignored`,
        );
        continue;
      }
      let series = this.series.get(name);
      if (series && series.source !== source) {
        if (demo || !series.demo) {
          this.warnOnce(
            `${source}:${name}`,
            `weather/${name} already comes from ${series.source}; the forecast of ${source} for it is ignored`,
          );
          continue;
        }
        // A real forecast takes the topic over from a demo (the simulator's): its points
        // replace the demo's entirely rather than mixing two models in one series.
        log.info(`weather/${name} now comes from ${source} instead of ${series.source}`);
        series.source = source;
        series.times = [];
        series.values = [];
      }
      if (!series) series = this.define(spec, source);
      series.demo = demo;
      this.replace(series, points, source);
      series.lastUpdated = fetchedAt;
    }
    this.prune();
    this.updateLiveValues(true);
  }

  /**
   * Moves each topic's live value to the current quarter hour and drops old points. Runs on
   * the timer from {@link start}; tests call it after moving a manual clock.
   */
  tick(): void {
    this.prune();
    this.updateLiveValues(false);
  }

  /** Keeps live values current: a timer that fires at every quarter-hour boundary. */
  start(): void {
    this.stop();
    const schedule = () => {
      const now = this.options.clock.now();
      const wait = floorToQuarterHour(now) + QUARTER_HOUR_MS - now;
      this.timer = setTimeout(() => {
        this.tick();
        schedule();
      }, wait + 5);
      this.timer.unref();
    };
    schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Whether forecasts are on: a forecast plugin is running, or some plugin that is not of
   * kind forecast (the simulator's demo forecast) has published one without registering.
   */
  get enabled(): boolean {
    return this.sources.size > 0 || this.series.size > 0;
  }

  dropPlans(source: string): void {
    for (const [topic, plan] of this.plans) if (plan.source === source) this.plans.delete(topic);
  }

  /** The plan topics there are, sorted. */
  planTopics(): string[] {
    return [...this.plans.keys()].sort();
  }

  private publishPlan(source: string, plan: PlanSeries, fetchedAt: number): void {
    // A worker's plugin sends whatever it likes: only a well-formed series is taken.
    if (
      typeof plan?.topic !== 'string' ||
      typeof plan.name !== 'string' ||
      typeof plan.unit !== 'string' ||
      !Array.isArray(plan.points)
    )
      return this.warnOnce(`${source}:plan`, `a plan series from ${source} is malformed; ignored`);
    const match = /^([a-z0-9_]+)\/([a-z0-9_]+)$/.exec(plan.topic);
    const owner = this.plans.get(plan.topic)?.source;
    if (!match || match[1] === 'weather' || (owner !== undefined && owner !== source)) {
      this.warnOnce(
        `${source}:${plan.topic}`,
        `plan series "${plan.topic}" from ${source} is not allowed (its own <device>/<name>, not weather/*, not another plugin's); ignored`,
      );
      return;
    }
    const meta: TopicMeta = {
      topic: plan.topic,
      deviceId: match[1]!,
      ...deviceFields(match[1]!),
      group: 'Status',
      name: plan.name,
      unit: plan.unit,
      type: 'number',
      recorded: false,
    };
    const points = plan.points
      .filter(
        (p): p is [number, number] =>
          Array.isArray(p) && Number.isFinite(p[0]) && p[1] !== null && Number.isFinite(p[1]),
      )
      .map(([t, v]): [number, number] => [t, roundTo(v, 3)])
      .sort((a, b) => a[0] - b[0]);
    this.plans.set(plan.topic, { source, meta, points, lastUpdated: fetchedAt });
  }

  /** What is known about `topic`, for the API's 404 messages. */
  lookup(topic: string): ForecastLookup {
    const plan = this.plans.get(topic);
    if (plan) return { kind: 'found', meta: plan.meta, lastUpdated: plan.lastUpdated };
    if (!this.enabled) return { kind: 'disabled' };
    const name = topic.startsWith('weather/') ? (topic.slice('weather/'.length) as ForecastTopic) : undefined;
    if (!name || !TOPIC_SPECS.some((s) => s.name === name)) return { kind: 'not-forecast' };
    const series = this.series.get(name);
    if (series) return { kind: 'found', meta: series.meta, lastUpdated: series.lastUpdated };
    if (this.series.size === 0) return { kind: 'not-fetched' };
    return { kind: 'not-published', published: [...this.series.values()].map((s) => s.meta.topic).sort() };
  }

  /** Points of `topic` whose quarter hour overlaps [from, to), in time order. */
  points(topic: string, from: number, to: number): Array<[number, number]> {
    const plan = this.plans.get(topic);
    if (plan) return plan.points.filter(([t]) => t >= floorToQuarterHour(from) && t < to);
    const series = this.series.get(topic.slice('weather/'.length) as ForecastTopic);
    if (!series) return [];
    const out: Array<[number, number]> = [];
    const first = lowerBound(series.times, floorToQuarterHour(from));
    for (let i = first; i < series.times.length && series.times[i]! < to; i++)
      out.push([series.times[i]!, series.values[i]!]);
    return out;
  }

  private define(spec: TopicSpec, source: string): Series {
    const { registry, temperatureUnit } = this.options;
    const meta: TopicMeta = {
      topic: `weather/${spec.name}`,
      deviceId: 'weather',
      device: 'weather',
      number: null,
      group: 'Status',
      name: spec.displayName,
      unit: spec.name === 'outside_temperature' ? `°${temperatureUnit}` : spec.unit,
      type: 'number',
      // The prediction as it stood at each moment is what history shows for this one topic.
      recorded: spec.name === 'pv_power_predicted',
    };
    const undefine = registry.define(meta);
    const series: Series = {
      meta,
      source,
      demo: false,
      times: [],
      values: [],
      lastUpdated: 0,
      state: registry.get(meta.topic)!,
      undefine,
    };
    this.series.set(spec.name, series);
    return series;
  }

  private replace(series: Series, points: ForecastPoints, source: string): void {
    const incoming = new Map<number, number | null>();
    let misaligned = 0;
    for (const [time, value] of points) {
      if (!Number.isFinite(time) || time % QUARTER_HOUR_MS !== 0) {
        misaligned++;
        continue;
      }
      incoming.set(time, value === null || !Number.isFinite(value) ? null : roundTo(value, 3));
    }
    if (misaligned > 0)
      this.warnOnce(
        `${source}:${series.meta.topic}:misaligned`,
        `${misaligned} point(s) of ${series.meta.topic} from ${source} are not on a quarter hour; ignored`,
      );
    if (incoming.size === 0) return;
    const times = [...incoming.keys()];
    const first = Math.min(...times);
    const last = Math.max(...times);
    const merged: Array<[number, number]> = [];
    for (let i = 0; i < series.times.length; i++) {
      const time = series.times[i]!;
      if (time < first || time > last) merged.push([time, series.values[i]!]);
    }
    // A null inside the run's range means "no forecast for that quarter hour": the old
    // point is dropped and nothing takes its place.
    for (const [time, value] of incoming) if (value !== null) merged.push([time, value]);
    merged.sort((a, b) => a[0] - b[0]);
    series.times = merged.map((p) => p[0]);
    series.values = merged.map((p) => p[1]);
  }

  private prune(): void {
    const oldest = this.options.clock.now() - FORECAST_PAST_KEPT_MS;
    for (const series of this.series.values()) {
      const keep = lowerBound(series.times, floorToQuarterHour(oldest));
      if (keep === 0) continue;
      series.times = series.times.slice(keep);
      series.values = series.values.slice(keep);
    }
  }

  private updateLiveValues(force: boolean): void {
    const slot = floorToQuarterHour(this.options.clock.now());
    if (!force && slot === this.liveSlot) return;
    this.liveSlot = slot;
    for (const series of this.series.values()) {
      const i = lowerBound(series.times, slot);
      const value = series.times[i] === slot ? series.values[i]! : null;
      this.options.registry.publish(series.state, value);
    }
  }

  private warnOnce(key: string, message: string): void {
    if (this.ignoredWarned.has(key)) return;
    this.ignoredWarned.add(key);
    log.warn(message);
  }
}

/** Index of the first element >= `value` in a sorted array. */
function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
