import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ResetPeriod } from '../energy/kwh-totals.js';
import type { InstanceState, InstanceStatus } from '../plugins/host/host.js';
import type { TopicRegistry } from '../topics/registry.js';

/** Where the figures come from; everything is read at scrape time, nothing is kept here. */
export interface PrometheusSources {
  registry: TopicRegistry;
  /** Plugin instances, then history's own row, as GET /api/v1/plugins lists them. */
  plugins: () => InstanceStatus[];
  /** The energy totals' reset period and the start of the current one (Unix ms). */
  energyPeriod: () => { period: ResetPeriod; startMs: number };
  version: string;
  siteId: number;
}

const STATES: readonly InstanceState[] = ['starting', 'running', 'failed', 'stopped'];

/** The core's period kWh totals (`total/pv_energy`, ...): the energy totals the API serves. */
const isEnergyTotal = (topic: string, unit: string) => topic.startsWith('total/') && unit === 'kWh';

/**
 * A prom-client registry of one server (never the global one: two servers in one process
 * share nothing) whose gauges fill themselves from the topic registry and the plugin host
 * when scraped:
 *
 * - `heliograph_topic_value{topic, device, unit}`: every numeric topic with a live reading;
 *   a stale device's topics (null in the API) are left out, so they go stale in Prometheus too;
 * - `heliograph_energy_kwh{topic, period}` and `heliograph_energy_period_start_timestamp_seconds{period}`:
 *   the period-to-date kWh totals and when their period began;
 * - `heliograph_plugin_up`, `heliograph_plugin_state`, `heliograph_plugin_last_error_info`,
 *   `heliograph_plugin_last_poll_timestamp_seconds`, labelled `id` and `plugin`;
 * - `heliograph_build_info{version, site_id}` and prom-client's process and Node.js metrics.
 *
 * @example
 * const register = prometheusRegistry({ registry, plugins: () => host.status(), energyPeriod, version, siteId });
 * const text = await register.metrics();
 */
export function prometheusRegistry(sources: PrometheusSources): Registry {
  const register = new Registry();
  const registers = [register];
  collectDefaultMetrics({ register });

  new Gauge({
    name: 'heliograph_topic_value',
    help: 'Current value of a numeric topic (GET /api/v1/metrics); absent while its device is stale',
    labelNames: ['topic', 'device', 'unit'] as const,
    registers,
    collect() {
      this.reset();
      for (const state of sources.registry.list()) {
        const value = sources.registry.visibleValue(state);
        const { topic, deviceId, unit } = state.meta;
        if (typeof value === 'number') this.set({ topic, device: deviceId, unit }, value);
      }
    },
  });

  new Gauge({
    name: 'heliograph_energy_kwh',
    help: 'Energy since the start of the current period (daily, weekly or monthly), kWh; restarts from 0 each period',
    labelNames: ['topic', 'period'] as const,
    registers,
    collect() {
      this.reset();
      const { period } = sources.energyPeriod();
      for (const state of sources.registry.list()) {
        const value = sources.registry.visibleValue(state);
        if (typeof value === 'number' && isEnergyTotal(state.meta.topic, state.meta.unit))
          this.set({ topic: state.meta.topic, period }, value);
      }
    },
  });

  new Gauge({
    name: 'heliograph_energy_period_start_timestamp_seconds',
    help: 'Start of the current energy period (local midnight in the site time zone), Unix seconds',
    labelNames: ['period'] as const,
    registers,
    collect() {
      this.reset();
      const { period, startMs } = sources.energyPeriod();
      this.set({ period }, startMs / 1000);
    },
  });

  pluginGauges(sources, registers);

  new Gauge({
    name: 'heliograph_build_info',
    help: 'The software version and the unit’s site id (system/site_id); always 1',
    labelNames: ['version', 'site_id'] as const,
    registers,
  }).set({ version: sources.version, site_id: String(sources.siteId) }, 1);

  return register;
}

/** Plugin health, one series per instance (and history's own row, id `history`). */
function pluginGauges(sources: PrometheusSources, registers: Registry[]): void {
  const gauge = (options: Omit<PluginGauge, 'registers' | 'plugins'>) =>
    pluginGauge({ ...options, registers, plugins: () => sources.plugins() });
  gauge({
    name: 'heliograph_plugin_up',
    help: 'Whether a plugin instance is running (1) or starting, failed or stopped (0)',
    label: 'kind',
    series: (p, set) => set(p.state === 'running' ? 1 : 0, p.kind),
  });
  gauge({
    name: 'heliograph_plugin_state',
    help: 'State of a plugin instance: 1 for the state it is in, 0 for the others',
    label: 'state',
    series: (p, set) => {
      for (const state of STATES) set(p.state === state ? 1 : 0, state);
    },
  });
  gauge({
    name: 'heliograph_plugin_last_error_info',
    help: 'The last error of a plugin instance (GET /api/v1/plugins last_error) in the error label; absent without one',
    label: 'error',
    series: (p, set) => {
      if (p.last_error !== null) set(1, p.last_error);
    },
  });
  gauge({
    name: 'heliograph_plugin_last_poll_timestamp_seconds',
    help: 'End of the last successful job run of a plugin instance, Unix seconds; absent before the first',
    series: (p, set) => {
      if (p.last_poll !== null) set(Date.parse(p.last_poll) / 1000);
    },
  });
}

interface PluginGauge {
  name: string;
  help: string;
  /** A third label besides `id` and `plugin`. */
  label?: string;
  registers: Registry[];
  plugins: () => InstanceStatus[];
  /** The instance's series: `set` once per value, with the third label's value. */
  series: (p: InstanceStatus, set: (value: number, labelValue?: string) => void) => void;
}

/** A gauge labelled by plugin instance (`id`, `plugin`), its series rebuilt at each scrape. */
function pluginGauge(options: PluginGauge): void {
  const { label, series, plugins } = options;
  new Gauge({
    name: options.name,
    help: options.help,
    labelNames: label === undefined ? ['id', 'plugin'] : ['id', 'plugin', label],
    registers: options.registers,
    collect() {
      this.reset();
      for (const p of plugins())
        series(p, (value, labelValue) =>
          this.set(
            label === undefined ? { id: p.id, plugin: p.plugin } : { id: p.id, plugin: p.plugin, [label]: labelValue! },
            value,
          ),
        );
    },
  });
}
