import { roundTo } from '../numbers.js';
import { TopicRegistry, type PendingTick, type TopicMeta, type TopicState } from './registry.js';
import { ownTopicMeta } from './topic-meta.js';
import type { PastColumns, PastReadings } from './sinks.js';

/** The total/* power topics and how each is derived from device topics. */
const POWER_TOTALS = [
  { name: 'pv_power', displayName: 'PV power', unit: 'W', sources: [/^inverter_\d+\/pv_power$/], combine: 'sum' },
  { name: 'load_power', displayName: 'Load power', unit: 'W', sources: [/^inverter_\d+\/load_power$/], combine: 'sum' },
  { name: 'grid_power', displayName: 'Grid power', unit: 'W', sources: [/^inverter_\d+\/grid_power$/], combine: 'sum' },
  // Battery devices know their own power best; the inverters' view is the fallback when no battery reports it.
  {
    name: 'battery_power',
    displayName: 'Battery power',
    unit: 'W',
    sources: [/^battery_\d+\/power$/, /^inverter_\d+\/battery_power$/],
    combine: 'sum',
  },
  {
    name: 'battery_state_of_charge',
    displayName: 'Battery state of charge',
    unit: '%',
    sources: [/^battery_\d+\/state_of_charge$/],
    combine: 'mean',
  },
] as const;

export function totalMeta(name: string, displayName: string, unit: string): TopicMeta {
  return ownTopicMeta('total', { name, displayName, unit, recorded: true });
}

interface DerivedTotal {
  state: TopicState;
  /** Source topics, one set per source pattern in order of preference. */
  sources: Set<TopicState>[];
  combine: 'sum' | 'mean';
}

/**
 * Derives total/* power topics from the inverter_N / battery_N topics plugins publish,
 * inside the same tick, so a client sees device values and totals in one update. Stale
 * devices drop out of the sums; a total with no live source reads null.
 */
export class TotalsDeriver {
  private readonly totals: DerivedTotal[] = [];
  private readonly allSources = new Set<TopicState>();

  constructor(private readonly registry: TopicRegistry) {}

  start(): () => void {
    const undo: Array<() => void> = [];
    for (const def of POWER_TOTALS) {
      undo.push(this.registry.define(totalMeta(def.name, def.displayName, def.unit)));
      this.totals.push({
        state: this.registry.get(`total/${def.name}`)!,
        sources: def.sources.map(() => new Set()),
        combine: def.combine,
      });
    }
    for (const state of this.registry.list()) this.added(state);
    const onDefinitions = (added: readonly TopicState[], removed: readonly TopicMeta[]) => {
      for (const state of added) this.added(state);
      for (const meta of removed) this.removed(meta);
    };
    this.registry.on('definitions', onDefinitions);
    undo.push(() => this.registry.off('definitions', onDefinitions));
    undo.push(this.registry.addDeriver((tick) => this.derive(tick)));
    return () => undo.reverse().forEach((u) => u());
  }

  private derive(tick: PendingTick): void {
    if (!touchesSources(tick.changed, this.allSources) && !touchesSources(tick.readings, this.allSources)) return;
    for (const total of this.totals) this.registry.setDerived(total.state, this.combine(total), tick);
  }

  private combine(total: DerivedTotal): number | null {
    for (const set of total.sources) {
      let sum = 0;
      let count = 0;
      for (const state of set) {
        const value = this.registry.visibleValue(state);
        if (typeof value === 'number' && Number.isFinite(value)) {
          sum += value;
          count++;
        }
      }
      if (count > 0) return roundTo(total.combine === 'sum' ? sum : sum / count, 3);
    }
    return null;
  }

  private added(state: TopicState): void {
    POWER_TOTALS.forEach((def, i) => {
      def.sources.forEach((re, j) => {
        if (re.test(state.meta.topic)) {
          this.totals[i]?.sources[j]!.add(state);
          this.allSources.add(state);
        }
      });
    });
  }

  private removed(meta: TopicMeta): void {
    for (const total of this.totals) {
      let dropped = false;
      for (const set of total.sources) {
        for (const state of set) {
          if (state.meta !== meta) continue;
          set.delete(state);
          dropped = true;
        }
      }
      // A removal brings no tick: without one the total would keep the removed device's
      // share (a plugin waiting to retry its setup), and history would sample it.
      if (dropped) this.registry.publish(total.state, this.combine(total));
    }
    for (const state of this.allSources) if (state.meta === meta) this.allSources.delete(state);
  }
}

/** Whether each of the `n` inverters has reported the time whose entry starts at `at` (see PastTotals.pending). */
function everyReported(slots: readonly number[], at: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (slots[at + i] === 0) return false;
  return true;
}

function touchesSources(states: readonly TopicState[], sources: Set<TopicState>): boolean {
  for (const state of states) if (sources.has(state)) return true;
  return false;
}

/** The totals that past readings can be derived for: sums of inverter metrics. */
const PAST_TOTALS = ['pv_power', 'load_power', 'grid_power', 'battery_power'] as const;
const BATTERY_DEVICE = /^battery_\d+$/;
const BATTERY_SOC = /^battery_\d+\/state_of_charge$/;

/**
 * Derives past total/* power readings from the past readings one plugin instance records
 * (a simulator's backfill, a device's stored log), so the totals' history covers the same
 * days as the devices'. A time's totals are complete once every inverter of the instance has
 * reported for it; they are only derived when the instance drives every inverter there is
 * (otherwise a past total would silently leave the others out). `total/battery_power` is the
 * inverters' view (their `battery_power`), since battery metrics are not recorded.
 * `total/battery_state_of_charge` is the mean of the batteries' past `state_of_charge`, as
 * live, once every battery that has a state of charge has reported for the time (battery
 * metrics themselves are not recorded: this total is their only history).
 */
export class PastTotals {
  /**
   * Per time: where its entry starts in `slots`: a flag per inverter that reported it, then
   * each inverter's PAST_TOTALS values (NaN: none). Entries live in one array of numbers and
   * are reused, not an object per time: a backfill hands over hundreds of times per call,
   * and they wait here for the next inverter's call.
   */
  private readonly pending = new Map<number, number>();
  private readonly slots: number[] = [];
  private readonly freeSlots: number[] = [];
  /** Per time: the state of charge by battery (with more than one battery). */
  private readonly pendingSoc = new Map<number, Map<string, number>>();

  constructor(
    private readonly registry: TopicRegistry,
    private readonly inverterIds: readonly string[],
  ) {}

  /** Whether this instance drives every inverter the registry knows. */
  coversAllInverters(): boolean {
    if (this.inverterIds.length === 0) return false;
    return this.registry
      .list()
      .every((s) => !/^inverter_\d+$/.test(s.meta.deviceId) || this.inverterIds.includes(s.meta.deviceId));
  }

  /** Adds one device's past readings; returns the total series that are now complete. */
  add(
    deviceId: string,
    readings: ReadonlyArray<{ time: number; values: Record<string, number> }>,
  ): Array<[TopicMeta, PastReadings]> {
    if (BATTERY_DEVICE.test(deviceId)) return this.addBattery(deviceId, readings);
    const k = this.inverterIds.indexOf(deviceId);
    if (k < 0) return [];
    const n = this.inverterIds.length;
    const names = PAST_TOTALS.length;
    const size = n * (1 + names);
    const slots = this.slots;
    const touched: number[] = [];
    for (const { time, values } of readings) {
      let at = this.pending.get(time);
      if (at === undefined) {
        at = this.freeSlots.pop() ?? slots.length;
        for (let i = 0; i < size; i++) slots[at + i] = i < n ? 0 : NaN;
        this.pending.set(time, at);
      }
      for (let j = 0; j < names; j++) {
        const value = values[PAST_TOTALS[j]!];
        if (typeof value === 'number' && Number.isFinite(value)) slots[at + n + k * names + j] = value;
      }
      slots[at + k] = 1;
      touched.push(time);
    }
    const series = new Map<string, { times: number[]; values: number[] }>();
    for (const time of touched) {
      const at = this.pending.get(time);
      if (at === undefined || !everyReported(slots, at, n)) continue;
      this.pending.delete(time);
      this.freeSlots.push(at);
      for (let j = 0; j < names; j++) {
        let sum = 0;
        let complete = true;
        for (let i = 0; i < n; i++) {
          const value = slots[at + n + i * names + j]!;
          if (Number.isNaN(value)) complete = false;
          else sum += value;
        }
        if (!complete) continue;
        let list = series.get(PAST_TOTALS[j]!);
        if (!list) series.set(PAST_TOTALS[j]!, (list = { times: [], values: [] }));
        list.times.push(time);
        list.values.push(roundTo(sum, 3));
      }
    }
    // A device that never reports a time must not make the buffer grow without end.
    if (this.pending.size > 100_000) {
      this.pending.clear();
      this.slots.length = 0;
      this.freeSlots.length = 0;
    }
    const out: Array<[TopicMeta, PastColumns]> = [];
    for (const [name, list] of series) {
      const state = this.registry.get(`total/${name}`);
      if (state) out.push([state.meta, list]);
    }
    return out;
  }

  /** A battery's past state of charge: the mean over the batteries, per time all have reported. */
  private addBattery(
    deviceId: string,
    readings: ReadonlyArray<{ time: number; values: Record<string, number> }>,
  ): Array<[TopicMeta, PastReadings]> {
    const total = this.registry.get('total/battery_state_of_charge');
    const batteries = this.registry.list().filter((s) => BATTERY_SOC.test(s.meta.topic)).length;
    if (!total || batteries === 0) return [];
    const list: Array<[number, number]> = [];
    for (const { time, values } of readings) {
      const soc = values.state_of_charge;
      if (typeof soc !== 'number' || !Number.isFinite(soc)) continue;
      if (batteries === 1) {
        list.push([time, roundTo(soc, 3)]);
        continue;
      }
      let atTime = this.pendingSoc.get(time);
      if (!atTime) this.pendingSoc.set(time, (atTime = new Map<string, number>()));
      atTime.set(deviceId, soc);
      if (atTime.size < batteries) continue;
      this.pendingSoc.delete(time);
      let sum = 0;
      for (const value of atTime.values()) sum += value;
      list.push([time, roundTo(sum / atTime.size, 3)]);
    }
    if (this.pendingSoc.size > 100_000) this.pendingSoc.clear();
    return list.length > 0 ? [[total.meta, list]] : [];
  }
}
