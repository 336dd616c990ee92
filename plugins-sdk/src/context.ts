/*
 * What the core hands a plugin instance: its context and the APIs on it, the devices it
 * drives and what they declare. Re-exported from the SDK's main entry.
 */
import type { Got } from 'got';
import type { IntegrationApi } from './integration.js';
import type { SiteApi } from './site.js';
import type { Disposer, MetricValue } from './values.js';

export type { Disposer, MetricValue, SiteInfo } from './values.js';

/**
 * A device this plugin instance drives. Its `id` (the topic prefix) comes from the instance
 * entry in plugins.json, never from the plugin, so numbering is stable across restarts.
 *
 * @example
 * for (const inv of ctx.devices.filter((d) => d.kind === 'inverter')) console.log(inv.id); // inverter_1
 */
export interface Device {
  /** Topic prefix, e.g. `inverter_1`, `battery_2` or a plugin's own kind's `planner_1`. */
  readonly id: string;
  /**
   * `inverter` or `battery`, whose topics feed the `total/*` topics, or a kind of the
   * plugin's own (`planner`, `ev_charger`) that the manifest's `devices.kinds` names.
   */
  readonly kind: DeviceKind;
  /** 0-based index among devices of its kind: `inverter_1` has 0. */
  readonly number: number;
  /** Display name, e.g. `Inverter 1`. */
  readonly name: string;
  /**
   * The device's own config from plugins.json (`{ "id": "inverter_1", "config": { "unitId": 2 } }`),
   * parsed by the plugin's `deviceConfigSchema`; `{}` when the entry is a plain id or the
   * plugin has no such schema.
   *
   * @example
   * const unitId = Number(device.config.unitId ?? 1);
   */
  readonly config: Record<string, unknown>;
}

/**
 * What a device says it is. Shown as the Info rows `<device>/manufacturer`, `/model`,
 * `/serial_number` and `/firmware_version` and in `GET /api/v1/plugins`; never nulled by
 * staleness or unavailability. Fields left out are not shown.
 *
 * @example
 * const identity: DeviceIdentity = { manufacturer: 'Deye', model: 'SUN-12K-SG04LP3', serial: '2305012345', firmware: '1.53' };
 */
export interface DeviceIdentity {
  manufacturer?: string;
  model?: string;
  serial?: string;
  firmware?: string;
  /**
   * What the device is reached through, as Home Assistant's `via_device`: another device of
   * this site by its id (`inverter_1` for a battery behind it; the MQTT bridge links the two)
   * or a gateway that is no device here (`Solarman logger 2712345678`). Shown as the Info row
   * `<device>/parent_device`.
   */
  parent?: string;
}

/**
 * What a device is: `inverter` and `battery` (the kinds the core derives `total/*` from), or
 * a kind of a plugin's own, lower snake case (`planner`, `ev_charger`), for a plugin whose
 * state should show in the API like a device's (a planner's plan, a charger's session).
 *
 * @example
 * const kind: DeviceKind = 'planner'; // devices planner_1, planner_2...
 */
export type DeviceKind = 'inverter' | 'battery' | (string & {});

/**
 * Kinds no plugin may take: the API's own topic prefixes (`total/*`, `grid/*`, `weather/*`,
 * `system/*`) and their clients' category names.
 *
 * @example
 * RESERVED_DEVICE_KINDS.includes('total'); // true
 */
export const RESERVED_DEVICE_KINDS: readonly string[] = [
  'total',
  'totals',
  'grid',
  'weather',
  'system',
  'inverters',
  'batteries',
];

/** A device kind: a lower-case letter, then lower-case letters, digits and single underscores. */
export const DEVICE_KIND_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * The device of an id `<kind>_<N>` (N from 1), as the core builds it from plugins.json:
 * `inverter_1`, `battery_2`, or a plugin's own kind's `planner_1`. Throws for any other form
 * and for a reserved kind (see {@link RESERVED_DEVICE_KINDS}).
 *
 * @example
 * deviceFromId('inverter_2'); // { id: 'inverter_2', kind: 'inverter', number: 1, name: 'Inverter 2', config: {} }
 * deviceFromId('ev_charger_1'); // { id: 'ev_charger_1', kind: 'ev_charger', number: 0, name: 'Ev charger 1', config: {} }
 */
export function deviceFromId(id: string): Device {
  const match = /^([a-z][a-z0-9_]*?)_([1-9]\d*)$/.exec(id);
  const kind = match?.[1];
  if (!match || !kind || !DEVICE_KIND_PATTERN.test(kind))
    throw new Error(`device id "${id}" is not of the form <kind>_<N>, such as inverter_1, battery_1 or planner_1`);
  if (RESERVED_DEVICE_KINDS.includes(kind))
    throw new Error(`device id "${id}": "${kind}" is reserved for the API's own topics; choose another kind`);
  const n = Number(match[2]);
  const label = kind.charAt(0).toUpperCase() + kind.slice(1).replaceAll('_', ' ');
  return { id, kind, number: n - 1, name: `${label} ${n}`, config: {} };
}

/**
 * Home Assistant's classes for a metric or setting, for the discovery fields clients read
 * (`GET /api/v1/metrics?discovery`, the WebSocket `definition` event). The core derives
 * both from the unit and type (W -> `power`, kWh -> `energy` with `total_increasing`, a
 * state of charge in % -> `battery`, other numbers -> `measurement`); declare them only
 * where that guess is wrong. A key left out keeps the derived class; `null` means none.
 *
 * @example
 * // A lifetime counter rather than a period total: `total_increasing` fits, the class too.
 * { name: 'lifetime_pv_energy', displayName: 'PV energy (lifetime)', unit: 'kWh', stateClass: 'total_increasing' }
 * // A cell voltage spread is a voltage, but no one wants it on the energy dashboard.
 * { name: 'cell_voltage_delta', displayName: 'Cell voltage delta', unit: 'V', deviceClass: null }
 * // A percentage that is not a state of charge, but the battery's health.
 * { name: 'state_of_health', displayName: 'State of health', unit: '%', deviceClass: null, stateClass: 'measurement' }
 */
export interface DiscoveryClasses {
  /** Home Assistant device class in lower snake case (`power`, `battery`, `duration`...), or null for none. */
  deviceClass?: string | null;
  /** Home Assistant state class, or null for none. */
  stateClass?: 'measurement' | 'total' | 'total_increasing' | null;
}

/**
 * A read-only metric of a device.
 *
 * By convention inverters publish `pv_power`, `load_power`, `grid_power` (positive = import),
 * `battery_power` (positive = charging), `device_mode`, `temperature`; batteries publish
 * `power` (positive = charging), `state_of_charge`, `voltage`, `temperature`. The core derives
 * the `total/*` topics from these names.
 *
 * @example
 * { name: 'pv_power', displayName: 'PV power', unit: 'W' }
 * { name: 'device_mode', displayName: 'Device mode', type: 'string' }
 * { name: 'serial_number', displayName: 'Serial number', type: 'string', group: 'Info' }
 * { name: 'cell_voltage_delta', displayName: 'Cell voltage delta', unit: 'V', deviceClass: null }
 */
export interface MetricDeclaration extends DiscoveryClasses {
  /** Name under the device prefix: `pv_power` becomes `inverter_1/pv_power`. Lower snake case. */
  name: string;
  /** Display name, e.g. `PV power`. */
  displayName: string;
  /** Unit, e.g. `W`, `kWh`, `%`, `V`, `°C`. Empty or omitted for none. */
  unit?: string;
  /** Value type; default `number`. */
  type?: 'number' | 'string' | 'boolean';
  /** Display group: `Status` (live readings, the default) or `Info` (model, serial, firmware). */
  group?: 'Status' | 'Info';
  /**
   * Whether history records this metric. Default: true for numeric `Status` metrics of
   * inverters, false otherwise (battery metrics are never recorded, per the API contract).
   */
  recorded?: boolean;
}

/**
 * One choice of an options setting: clients see and write `label`, the handler gets `value`
 * (a register value, a command code).
 *
 * @example
 * const option: SettingOption<number> = { value: 0, label: 'Battery first' };
 */
export interface SettingOption<V extends string | number = string | number> {
  value: V;
  label: string;
}

/** Fields every kind of setting has. */
interface SettingBase extends DiscoveryClasses {
  /** Name under the device prefix, lower snake case. */
  name: string;
  displayName: string;
  unit?: string;
  /** Current value before the device first reports one (optional). */
  initial?: MetricValue;
}

/**
 * An enumerated setting: clients write one of the labels (case-insensitively), the handler
 * gets the matching option's `value` and `label`. With plain string options, value and
 * label are the same string.
 *
 * @example
 * {
 *   name: 'output_source_priority', displayName: 'Output source priority',
 *   options: ['Utility first', 'Solar first', 'SBU priority'],
 *   write: async ({ value }) => { await device.send(`POP0${['Utility first', 'Solar first', 'SBU priority'].indexOf(String(value))}`); },
 * }
 * {
 *   name: 'work_mode', displayName: 'Work mode',
 *   options: [{ value: 0, label: 'Selling first' }, { value: 1, label: 'Zero export' }],
 *   write: async ({ value }) => { await modbus.writeRegisters({ unitId: 1, address: 142, values: [Number(value)] }); },
 * }
 */
export interface OptionsSettingDeclaration<V extends string | number = string | number> extends SettingBase {
  kind?: 'options';
  options: readonly string[] | ReadonlyArray<SettingOption<V>>;
  min?: never;
  max?: never;
  /** Writes the chosen option; resolves once the device confirmed it. */
  write(args: { value: V; label: string; signal: AbortSignal }): Promise<void>;
}

/**
 * A numeric setting: clients write a number within `[min, max]` on the `step` grid
 * (counted from `min`); the handler gets it as a number.
 *
 * @example
 * {
 *   name: 'max_charge_current', displayName: 'Max charge current', unit: 'A',
 *   min: 10, max: 120, step: 10,
 *   write: async ({ value }) => { await device.writeRegister(210, value); },
 * }
 */
export interface RangeSettingDeclaration extends SettingBase {
  kind?: 'range';
  min: number;
  max: number;
  step?: number;
  options?: never;
  /** Writes the number; resolves once the device confirmed it. */
  write(args: { value: number; signal: AbortSignal }): Promise<void>;
}

/**
 * A two-state setting: clients see a switch whose payloads are `on` and `off` (default
 * `ON` / `OFF`) and may write either payload (case-insensitively), `true` / `false`, or a
 * JSON boolean; the handler gets a boolean.
 *
 * @example
 * {
 *   kind: 'switch', name: 'grid_charge', displayName: 'Grid charge',
 *   on: 'Enabled', off: 'Disabled',
 *   write: async ({ value }) => { await device.send(value ? 'PEa' : 'PDa'); },
 * }
 */
export interface SwitchSettingDeclaration extends SettingBase {
  kind: 'switch';
  /** What clients see and write for on; default `ON`. */
  on?: string;
  /** What clients see and write for off; default `OFF`. */
  off?: string;
  options?: never;
  min?: never;
  max?: never;
  /** Writes the state; resolves once the device confirmed it. */
  write(args: { value: boolean; signal: AbortSignal }): Promise<void>;
}

/**
 * A writable setting of a device, declared next to the handler that writes it: options,
 * a numeric range, or a switch. The handler receives the value already validated and
 * converted to its kind's type. It resolves once the device confirmed the write and throws
 * when it did not: `DeviceRefusedError` when the device said no,
 * `NoAnswerError` when it did not answer, any Error otherwise. After it resolves, the
 * core shows the new value until the plugin publishes another.
 *
 * @example
 * const settings: SettingDeclaration[] = [
 *   { name: 'max_charge_current', displayName: 'Max charge current', unit: 'A', min: 10, max: 120, step: 10, write: async ({ value }) => setCurrent(value) },
 *   { kind: 'switch', name: 'buzzer', displayName: 'Buzzer', write: async ({ value }) => setBuzzer(value) },
 * ];
 */
export type SettingDeclaration = OptionsSettingDeclaration | RangeSettingDeclaration | SwitchSettingDeclaration;

/**
 * What {@link TopicsApi.updateSetting} takes: the setting and the fields that change.
 *
 * @example
 * const update: SettingUpdate = { device: 'inverter_1', name: 'max_charge_current', min: 0, max: 150 };
 */
export interface SettingUpdate {
  device: string;
  name: string;
  min?: number;
  max?: number;
  step?: number;
  options?: readonly string[] | ReadonlyArray<SettingOption>;
}

/**
 * Everything one device exposes. Declare before publishing: values of undeclared names are
 * ignored (and logged once).
 *
 * @example
 * ctx.topics.declare({
 *   device: 'inverter_1',
 *   pollIntervalMs: 5000,
 *   metrics: [{ name: 'pv_power', displayName: 'PV power', unit: 'W' }],
 *   settings: [],
 * });
 */
export interface DeviceDeclaration {
  /** The device id from `ctx.devices`, e.g. `inverter_1`. */
  device: string;
  metrics: MetricDeclaration[];
  settings?: SettingDeclaration[];
  /** What the device says it is, when known at declare time; see {@link TopicsApi.identify}. */
  identity?: DeviceIdentity;
  /**
   * How often the plugin reads the device. A device that has published nothing for three
   * intervals (at least 30 s) is stale: its values read `null` until it answers again.
   */
  pollIntervalMs?: number;
}

/**
 * Declares and publishes a plugin's metrics.
 *
 * @example
 * ctx.topics.declare({ device: 'battery_1', metrics: [{ name: 'voltage', displayName: 'Voltage', unit: 'V' }] });
 * ctx.topics.publish({ device: 'battery_1', values: { voltage: 52.4 } });
 */
export interface TopicsApi {
  /** Declares a device's metrics and settings. */
  declare(declaration: DeviceDeclaration): Disposer;
  /**
   * Publishes current readings of one device. All values of one call reach clients as one
   * update. A publish with at least one non-null value marks the device as answering (not
   * stale, available again); publishing only nulls does not.
   */
  publish(args: { device: string; values: Record<string, MetricValue> }): void;
  /**
   * Sets what a device says it is, merged into what was declared or identified before
   * (fields left out keep their value).
   *
   * @example
   * ctx.topics.identify({ device: 'inverter_1', identity: { serial: await readSerial(), firmware: '1.53' } });
   */
  identify(args: { device: string; identity: DeviceIdentity }): void;
  /**
   * Says the device is not answering, now: its values read `null` at once (as when stale), history
   * records nothing for it, and `GET /api/v1/plugins` shows it unavailable with `reason`.
   * Its identity rows keep their values.
   *
   * @example
   * ctx.topics.markUnavailable({ device: 'inverter_1', reason: 'no answer within 1500 ms' });
   */
  markUnavailable(args: { device: string; reason: string }): void;
  /**
   * Says the device answers again (a publish with a non-null value does the same).
   *
   * @example
   * ctx.topics.markAvailable({ device: 'inverter_1' });
   */
  markAvailable(args: { device: string }): void;
  /**
   * Changes a declared setting's range or options at runtime (the device reported new
   * limits); clients get the new definition. Only the fields given change, and they must
   * fit the setting's kind.
   *
   * @example
   * ctx.topics.updateSetting({ device: 'inverter_1', name: 'max_charge_current', max: await readMaxCurrent() });
   */
  updateSetting(args: SettingUpdate): void;
  /**
   * Records past readings straight into history, without touching live values. For
   * backfilling a device's stored log or a simulator's past days. `time` is Unix ms.
   *
   * @example
   * await ctx.topics.record({ device: 'inverter_1', readings: [{ time: Date.parse('2026-11-20T10:00:00Z'), values: { pv_power: 2100 } }] });
   */
  record(args: { device: string; readings: Array<{ time: number; values: Record<string, number> }> }): Promise<void>;
}

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
 * multiplier and offset. For export prices, positive means the user is paid.
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
  /** Replaces the slots it covers; `export` only for `import_export_pricing`. */
  publish(args: { import: PriceSlot[]; export?: PriceSlot[] }): void;
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

/**
 * A scheduled job. Runs never overlap; a run that throws is retried with back-off (doubling
 * from the interval's tenth up to the interval, at most 15 minutes), and the error shows
 * in the plugin's status until a run succeeds.
 *
 * @example
 * const job: JobOptions = { name: 'refresh', run: async ({ signal }) => { await fetchPrices(signal); } };
 * ctx.scheduler.every({ ...job, intervalMs: 3_600_000 });
 */
export interface JobOptions {
  /** Short name for logs and status, e.g. `poll`. */
  name: string;
  /** The work. Honour `signal`: it aborts when the plugin stops. */
  run(args: { signal: AbortSignal }): Promise<void> | void;
}

/**
 * Runs a plugin's periodic work.
 *
 * @example
 * ctx.scheduler.every({ name: 'poll', intervalMs: 5000, run: async ({ signal }) => read(signal) });
 * ctx.scheduler.daily({ name: 'tomorrow', times: ['13:05', '14:00'], run: fetchPrices });
 */
export interface SchedulerApi {
  /** Every `intervalMs`, first run at once unless `immediate: false`. */
  every(args: JobOptions & { intervalMs: number; immediate?: boolean }): Disposer;
  /** At local wall-clock times (`HH:MM`) each day, in `timeZone` (default: the site's). */
  daily(args: JobOptions & { times: string[]; timeZone?: string }): Disposer;
}

/**
 * Reports the plugin's health outside a scheduled job (a long-lived socket's `error`
 * event): shown in the plugin's status like a failing job, until `ok()` or a job succeeds.
 *
 * @example
 * socket.on('error', (err) => ctx.status.error({ message: `connection lost: ${err.message}` }));
 * socket.on('connect', () => ctx.status.ok());
 */
export interface StatusApi {
  /** Shows an error in the plugin's status now. */
  error(args: { message: string }): void;
  /** Clears an error reported with {@link StatusApi.error}. */
  ok(): void;
}

/**
 * A small persistent key-value store for the plugin instance's own state (JSON values).
 *
 * @example
 * if (!(await ctx.store.get('backfilled'))) { await backfill(); await ctx.store.set('backfilled', true); }
 */
export interface PluginStore {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A logger already bound to the plugin instance's id.
 *
 * @example
 * ctx.log.warn('device did not answer', { attempt: 3 });
 */
export interface PluginLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What the core hands a plugin instance: built for it alone, bound to its id. Never the
 * container, the web app, the database or another plugin.
 *
 * @example
 * export default definePlugin({
 *   id: 'hello',
 *   configSchema: z.object({ intervalMs: z.number().default(5000) }),
 *   setup(ctx, config) {
 *     const [inv] = ctx.devices;
 *     ctx.topics.declare({ device: inv.id, metrics: [{ name: 'pv_power', displayName: 'PV power', unit: 'W' }] });
 *     ctx.scheduler.every({ name: 'poll', intervalMs: config.intervalMs, run: () => ctx.topics.publish({ device: inv.id, values: { pv_power: 42 } }) });
 *   },
 * });
 */
export interface PluginContext {
  /** The instance id from plugins.json, e.g. `sim`. */
  readonly instanceId: string;
  readonly log: PluginLogger;
  /** The devices plugins.json assigns to this instance, in order. */
  readonly devices: readonly Device[];
  /** The site's settings, and its topics, prices, forecasts and history to read and settings to write. */
  readonly site: SiteApi;
  readonly topics: TopicsApi;
  readonly scheduler: SchedulerApi;
  /** Reports errors and recovery outside jobs. */
  readonly status: StatusApi;
  readonly forecast: ForecastApi;
  readonly prices: PricesApi;
  readonly integration: IntegrationApi;
  /** A got instance with timeouts and retries set, for outbound HTTP. */
  readonly http: Got;
  readonly store: PluginStore;
  /** Aborts when the plugin stops. */
  readonly signal: AbortSignal;
  /** The current time in Unix ms; tests may control it. Use it instead of Date.now(). */
  now(): number;
}
