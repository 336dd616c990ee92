import type { Device } from '@heliograph/plugins-sdk';
import type { Logger } from '../../log.js';
import type { TopicMeta, TopicRegistry } from '../../topics/registry.js';
import { PastEnergy } from '../../energy/past-energy.js';
import type { PastEnergySeries, ResetPeriod } from '../../energy/kwh-totals.js';
import { PastTotals } from '../../topics/power-totals.js';
import type { DeviceTopics } from './device-topics.js';
import type { HistorySink, PastReadings as PastSeries } from '../../topics/sinks.js';

type Readings = Array<{ time: number; values: Record<string, number> }>;

export interface PastReadingsOptions {
  devices: readonly Device[];
  registry: TopicRegistry;
  topics: DeviceTopics;
  history?: HistorySink;
  log: Logger;
  /** The kWh totals' reset period and zone; without it, past readings add no energy. */
  /** The energy rules (reset period, zone) in force at `time`: past readings are counted by them. */
  energyReset?: (time: number) => { period: ResetPeriod; timeZone: string };
  /** The live kWh totals, given the past energy series: the part of the current period a backfill recorded counts in them. */
  pastEnergy?: (series: PastEnergySeries) => void;
}

/**
 * `ctx.topics.record`: past readings of declared metrics written straight into history,
 * with the total/* series they complete when this instance drives every inverter: the
 * powers, and the kWh totals those powers add up to (so a backfilled day has its energy).
 */
export class PastReadings {
  private pastTotals: PastTotals | undefined;
  private pastEnergy: PastEnergy | undefined;
  private warnedPartialTotals = false;

  constructor(private readonly options: PastReadingsOptions) {}

  /**
   * Not async: the readings are turned into columns at once and not held while the write
   * awaits the database, so a backfill's objects die young instead of being promoted.
   */
  record(deviceId: string, readings: Readings): Promise<void> {
    try {
      return this.write(deviceId, readings);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private write(deviceId: string, readings: Readings): Promise<void> {
    const { history, topics } = this.options;
    if (!history) return Promise.resolve();
    const byName = topics.declaredOf(deviceId, 'record');
    if (!byName) return Promise.resolve();
    // Columns of numbers, not a pair per reading: a backfill hands over hours at a time.
    const series = new Map<TopicMeta, { times: number[]; values: number[] }>();
    for (const reading of readings) {
      for (const name in reading.values) {
        const state = byName.get(name);
        if (!state) {
          topics.warnUnknown(`${deviceId}/${name}`);
          continue;
        }
        if (!state.meta.recorded) continue;
        let list = series.get(state.meta);
        if (!list) series.set(state.meta, (list = { times: [], values: [] }));
        list.times.push(reading.time);
        list.values.push(reading.values[name]!);
      }
    }
    // One write for the device's topics and the totals they complete, not one per topic.
    return history.recordPastSeries([...series, ...this.pastTotalsOf(deviceId, readings)]);
  }

  /** The total/* series that past readings complete; none while other instances drive inverters too. */
  private pastTotalsOf(deviceId: string, readings: Readings): Array<readonly [TopicMeta, PastSeries]> {
    const { devices, registry, log } = this.options;
    this.pastTotals ??= new PastTotals(
      registry,
      devices.filter((d) => d.kind === 'inverter').map((d) => d.id),
    );
    if (!this.pastTotals.coversAllInverters()) {
      if (!this.warnedPartialTotals)
        log.info(
          'past readings recorded without totals: other instances drive inverters too, so past total/* values would be partial',
        );
      this.warnedPartialTotals = true;
      return [];
    }
    const totals = this.pastTotals.add(deviceId, readings);
    const { energyReset } = this.options;
    if (!energyReset) return totals;
    this.pastEnergy ??= new PastEnergy(registry, energyReset);
    const energy = this.pastEnergy.add(totals);
    if (energy.length > 0)
      this.options.pastEnergy?.(energy.map(([meta, points]) => [meta.topic.slice('total/'.length), points] as const));
    return [...totals, ...energy];
  }
}
