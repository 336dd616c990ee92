/*
 * `ctx.topics`: what a driver declares of a device (its metrics and settings) and publishes
 * for it. Re-exported from the SDK's main entry.
 */
import type { Disposer, MetricValue } from './basics.js';
import type { DeviceIdentity } from './devices.js';

/** A value `ctx.site.write` takes: text as the API takes it, or the typed value. */
export type SiteWriteValue = string | number | boolean;

/**
 * What a setting's handler gets as `together` when it is written with companions
 * ({@link SiteApi.write}): each companion's value by setting name, converted as its own
 * handler would get it (a number, an option's value, a boolean).
 *
 * @example
 * write: async ({ value, together }) => { await device.command({ mode: value, powerW: Number(together?.battery_control_power ?? 0) }); }
 */
export type SettingsTogether = Readonly<Record<string, SiteWriteValue>>;

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
  write(args: { value: V; label: string; signal: AbortSignal; together?: SettingsTogether }): Promise<void>;
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
  write(args: { value: number; signal: AbortSignal; together?: SettingsTogether }): Promise<void>;
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
  write(args: { value: boolean; signal: AbortSignal; together?: SettingsTogether }): Promise<void>;
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
