import type { ForecastPoints, ForecastRun, ForecastTopic, PlanSeries } from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import { createLogger } from '../log.js';
import type { ForecastSink } from '../topics/sinks.js';
import type { TopicMeta, TopicRegistry, TopicState } from '../topics/registry.js';
import { ownTopicMeta } from '../topics/topic-meta.js';
import { roundTo } from '../numbers.js';
import { deviceFields } from '../topics/device.js';
import { QUARTER_HOUR_MS, floorToQuarterHour } from './quarter-hours.js';
import type { SourceRole } from '../grid/book.js';

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

/** One source's forecast of one topic: points sorted by time, each covering [time, time + 15 min). */
interface Run {
  times: number[];
  values: number[];
  /** Its latest run was declared demo data: a real forecast may take the topic over. */
  demo: boolean;
  lastUpdated: number;
}

/** One topic as the site uses it: defined in the registry while some source's run is in use. */
interface Series {
  readonly meta: TopicMeta;
  /** The source (plugin instance) whose run is in use; fallbacks may fill before and after it. */
  source: string;
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
  /** Nothing in use yet; `chosen`: the owner's forecast source (config `forecast.source`), if any. */
  | { kind: 'not-fetched'; chosen: string | null }
  | { kind: 'not-published'; published: string[] }
  | { kind: 'found'; meta: TopicMeta; lastUpdated: number; source: string };

/** The owner's forecast source and its fallbacks (config `forecast.source`, `forecast.fallbacks`). */
export interface ForecastChoice {
  /** A plugin instance id; null: automatic (see {@link ForecastStore}). */
  source: string | null;
  fallbacks: readonly string[];
}

export interface ForecastStoreOptions {
  registry: TopicRegistry;
  clock: Clock;
  /** The site's temperature unit: forecast plugins publish in it, so it is the topic's unit. */
  temperatureUnit: 'C' | 'F';
  /** The owner's choice; absent: automatic. */
  choice?: ForecastChoice;
}

/**
 * The weather forecast: 15-minute points per weather/* topic, fed by forecast plugins.
 *
 * A run replaces the stored points of the range it covers (a newer model run is better
 * everywhere it speaks) and keeps the rest; points older than 48 hours are dropped. Each
 * topic is defined in the registry when a run of it is first in use (a PV-only provider such
 * as Forecast.Solar then adds no empty weather topics), and its live value is the forecast
 * for the current quarter hour, moved on at every quarter-hour boundary.
 *
 * Every source's runs are kept, but each topic uses one source's, so two providers never
 * mix in one series. With the owner's choice (config `forecast.source`), that is the chosen
 * source's, else the first of its fallbacks that has the topic, and the fallbacks after it
 * fill the quarter hours before and after its own; any other source is on standby (kept,
 * not used). Without a choice, the first source to publish a topic keeps it; only a run
 * declared `demo` (the simulator's outlook) gives way to a real one. When the source in use
 * stops, the next one with the topic stands in at once (until the keeper publishes again,
 * or another source publishes first).
 *
 * Temperatures arrive in the site's unit: plugins read `ctx.site.temperatureUnit` and ask
 * their provider for it, so the store only labels weather/outside_temperature °C or °F.
 */
export class ForecastStore implements ForecastSink {
  /** The topics in use (defined in the registry). */
  private readonly series = new Map<ForecastTopic, Series>();
  /** Every source's run of each topic, sources in the order they first published it. */
  private readonly runs = new Map<ForecastTopic, Map<string, Run>>();
  /** Without a choice: the source that keeps each topic (the first to publish it). */
  private readonly keepers = new Map<ForecastTopic, string>();
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
    this.runs.delete('outside_temperature');
    this.keepers.delete('outside_temperature');
    this.refresh('outside_temperature');
  }

  /**
   * The owner chose a forecast source and fallbacks (applied without a restart): each topic
   * uses them from now on, with what they have published already.
   */
  choose(choice: ForecastChoice): void {
    this.options.choice = { source: choice.source, fallbacks: [...choice.fallbacks] };
    for (const name of TOPIC_SPECS.map((s) => s.name)) this.refresh(name);
    this.updateLiveValues(true);
  }

  /**
   * `source`'s role (GET /api/v1/plugins' `source_role`). With a chosen source: `active` for
   * the first of the owner's list that has published (the chosen one until one has),
   * `fallback` for the rest of the list, `standby` for any other. Without: `active` when a
   * topic uses its forecast (or none is used yet), else `standby`.
   */
  roleOf(source: string): SourceRole {
    const { source: chosen, fallbacks } = this.choice();
    if (!chosen) {
      const used = [...this.series.values()];
      return used.length === 0 || used.some((s) => s.source === source) ? 'active' : 'standby';
    }
    const order = [chosen, ...fallbacks];
    const published = (id: string) => [...this.runs.values()].some((runs) => runs.has(id));
    if (source === (order.find(published) ?? chosen)) return 'active';
    return order.includes(source) ? 'fallback' : 'standby';
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
      for (const [name, runs] of this.runs) {
        if (!runs.delete(source)) continue;
        if (runs.size === 0) this.runs.delete(name);
        this.refresh(name);
      }
      this.updateLiveValues(true);
    };
  }

  publish(source: string, run: ForecastRun): void {
    const fetchedAt = run.fetchedAt ?? this.options.clock.now();
    if (Array.isArray(run.plan)) for (const plan of run.plan) this.publishPlan(source, plan, fetchedAt);
    const demo = run.demo ?? false;
    for (const [name, points] of Object.entries(run.series) as Array<[ForecastTopic, ForecastPoints | undefined]>) {
      if (!points || points.length === 0) continue;
      if (!TOPIC_SPECS.some((s) => s.name === name)) {
        this.warnOnce(
          `${source}:${name}`,
          `forecast topic "${name}" from ${source} is not a known weather topic; ignored`,
        );
        continue;
      }
      let runs = this.runs.get(name);
      if (!runs) this.runs.set(name, (runs = new Map<string, Run>()));
      let stored = runs.get(source);
      if (!stored) runs.set(source, (stored = { times: [], values: [], demo, lastUpdated: fetchedAt }));
      this.replace(stored, points, source, name);
      stored.demo = demo;
      stored.lastUpdated = fetchedAt;
      this.keep(name, source);
      this.refresh(name);
      const user = this.series.get(name)?.source;
      if (user !== undefined && user !== source && this.roleOf(source) === 'standby')
        this.warnOnce(
          `${source}:${name}`,
          `weather/${name} comes from ${user}; the forecast of ${source} for it is kept on standby, not used`,
        );
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
    return this.sources.size > 0 || this.runs.size > 0;
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
    if (plan) return { kind: 'found', meta: plan.meta, lastUpdated: plan.lastUpdated, source: plan.source };
    if (!this.enabled) return { kind: 'disabled' };
    const name = topic.startsWith('weather/') ? (topic.slice('weather/'.length) as ForecastTopic) : undefined;
    if (!name || !TOPIC_SPECS.some((s) => s.name === name)) return { kind: 'not-forecast' };
    const series = this.series.get(name);
    if (series) return { kind: 'found', meta: series.meta, lastUpdated: series.lastUpdated, source: series.source };
    if (this.series.size === 0) return { kind: 'not-fetched', chosen: this.choice().source };
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

  private choice(): ForecastChoice {
    return this.options.choice ?? { source: null, fallbacks: [] };
  }

  /**
   * Without a choice, who keeps `name` after `source` published it: the keeper while it has
   * a run of it, unless the keeper's is a demo and `source`'s is not; else `source`.
   */
  private keep(name: ForecastTopic, source: string): void {
    const runs = this.runs.get(name)!;
    const keeper = this.keepers.get(name);
    const kept = keeper === undefined ? undefined : runs.get(keeper);
    if (keeper === source || (kept && (runs.get(source)!.demo || !kept.demo))) return;
    this.keepers.set(name, source);
  }

  /**
   * The runs `name` uses, the one in use first: the owner's list's that have points of it,
   * in order; without a choice, the keeper's alone (while it is stopped, another source's, a
   * real one before a demo).
   */
  private inUse(name: ForecastTopic): Array<[string, Run]> {
    const runs = this.runs.get(name);
    if (!runs) return [];
    const { source, fallbacks } = this.choice();
    if (source)
      return [source, ...fallbacks].flatMap((id) => {
        const run = runs.get(id);
        return run && run.times.length > 0 ? [[id, run] as [string, Run]] : [];
      });
    const keeper = this.keepers.get(name);
    const kept = keeper === undefined ? undefined : runs.get(keeper);
    if (kept) return [[keeper!, kept]];
    // The keeper stopped (a restart after a reconfiguration, say): the next source stands in
    // until it publishes again, so a restart does not hand the topic over for good.
    const all = [...runs];
    const standIn = all.find(([, run]) => !run.demo) ?? all[0];
    return standIn ? [standIn] : [];
  }

  /**
   * Sets what topic `name` shows from the runs in use: the first's points, with the quarter
   * hours before and after them filled from the next ones in order. Defines the topic when
   * a run comes into use, and removes it when none is left.
   */
  private refresh(name: ForecastTopic): void {
    const used = this.inUse(name);
    let series = this.series.get(name);
    if (used.length === 0) {
      if (series) {
        series.undefine();
        this.series.delete(name);
      }
      return;
    }
    const [source, first] = used[0]!;
    if (!series)
      series = this.define(
        TOPIC_SPECS.find((s) => s.name === name)!,
        source,
      );
    if (series.source !== source) log.info(`weather/${name} now comes from ${source} instead of ${series.source}`);
    series.source = source;
    series.lastUpdated = first.lastUpdated;
    let { times, values } = first;
    for (const [, filler] of used.slice(1)) {
      const from = times[0]!;
      const to = times[times.length - 1]!;
      const before = lowerBound(filler.times, from);
      const after = lowerBound(filler.times, to + 1);
      times = [...filler.times.slice(0, before), ...times, ...filler.times.slice(after)];
      values = [...filler.values.slice(0, before), ...values, ...filler.values.slice(after)];
    }
    series.times = times;
    series.values = values;
  }

  private define(spec: TopicSpec, source: string): Series {
    const { registry, temperatureUnit } = this.options;
    const meta = ownTopicMeta('weather', {
      name: spec.name,
      displayName: spec.displayName,
      unit: spec.name === 'outside_temperature' ? `°${temperatureUnit}` : spec.unit,
      // The prediction as it stood at each moment is what history shows for this one topic.
      recorded: spec.name === 'pv_power_predicted',
    });
    const undefine = registry.define(meta);
    const series: Series = {
      meta,
      source,
      times: [],
      values: [],
      lastUpdated: 0,
      state: registry.get(meta.topic)!,
      undefine,
    };
    this.series.set(spec.name, series);
    return series;
  }

  private replace(run: Run, points: ForecastPoints, source: string, name: ForecastTopic): void {
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
        `${source}:weather/${name}:misaligned`,
        `${misaligned} point(s) of weather/${name} from ${source} are not on a quarter hour; ignored`,
      );
    if (incoming.size === 0) return;
    const times = [...incoming.keys()];
    const first = Math.min(...times);
    const last = Math.max(...times);
    const merged: Array<[number, number]> = [];
    for (let i = 0; i < run.times.length; i++) {
      const time = run.times[i]!;
      if (time < first || time > last) merged.push([time, run.values[i]!]);
    }
    // A null inside the run's range means "no forecast for that quarter hour": the old
    // point is dropped and nothing takes its place.
    for (const [time, value] of incoming) if (value !== null) merged.push([time, value]);
    merged.sort((a, b) => a[0] - b[0]);
    run.times = merged.map((p) => p[0]);
    run.values = merged.map((p) => p[1]);
  }

  private prune(): void {
    const oldest = floorToQuarterHour(this.options.clock.now() - FORECAST_PAST_KEPT_MS);
    for (const [name, runs] of this.runs) {
      let pruned = false;
      for (const run of runs.values()) {
        const keep = lowerBound(run.times, oldest);
        if (keep === 0) continue;
        run.times = run.times.slice(keep);
        run.values = run.values.slice(keep);
        pruned = true;
      }
      if (pruned) this.refresh(name);
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
