import type { PendingTick, TopicMeta, TopicRegistry, TopicState } from './registry.js';

/** The total/* power topics and how each is derived from device topics. */
const POWER_TOTALS = [
  { name: 'pv_power', displayName: 'PV power', unit: 'W', sources: [/^inverter_\d+\/pv_power$/], combine: 'sum' },
  { name: 'load_power', displayName: 'Load power', unit: 'W', sources: [/^inverter_\d+\/load_power$/], combine: 'sum' },
  { name: 'grid_power', displayName: 'Grid power', unit: 'W', sources: [/^inverter_\d+\/grid_power$/], combine: 'sum' },
  // Battery devices know their own power best; the inverters' view is the fallback when no battery reports it.
  { name: 'battery_power', displayName: 'Battery power', unit: 'W', sources: [/^battery_\d+\/power$/, /^inverter_\d+\/battery_power$/], combine: 'sum' },
  { name: 'battery_state_of_charge', displayName: 'Battery state of charge', unit: '%', sources: [/^battery_\d+\/state_of_charge$/], combine: 'mean' },
] as const;

export function totalMeta(name: string, displayName: string, unit: string): TopicMeta {
  return { topic: `total/${name}`, deviceId: 'total', device: 'Total', number: 0, group: 'Status', name: displayName, unit, type: 'number', recorded: true };
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
      this.totals.push({ state: this.registry.get(`total/${def.name}`)!, sources: def.sources.map(() => new Set()), combine: def.combine });
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
      for (const set of total.sources) {
        for (const state of set) if (state.meta === meta) set.delete(state);
      }
    }
    for (const state of this.allSources) if (state.meta === meta) this.allSources.delete(state);
  }
}

function touchesSources(states: readonly TopicState[], sources: Set<TopicState>): boolean {
  for (const state of states) if (sources.has(state)) return true;
  return false;
}

/** Rounds away float noise: 0.1 + 0.2 shows as 0.3. */
export function roundTo(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
