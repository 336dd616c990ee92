/*
 * The wiring every register-map inverter driver repeats: one inverter (and its battery) on one
 * Modbus unit, polled on the instance's interval with the unit's availability watched, and
 * the connection released on stop. A driver keeps only its map and its own device's bits.
 */
import type { Device, DeviceIdentity, Disposer, MetricValue, PluginContext } from '../context.js';
import type { PolledBatteryControl } from '../polled-battery-control.js';
import { openModbus, type ModbusClient } from './modbus.js';
import { inverterOnUnit, watchUnit, type InverterOnUnit } from './modbus-devices.js';
import type { RegisterMap } from './register-map.js';
import { readRegisterMap, registerMapDeclarations, type RegisterMapValues } from './register-map-io.js';
import type { ConnectionSpec } from './spec.js';

/** The config fields an inverter-on-a-unit driver reads: its connection and the polling fields. */
export interface InverterUnitConfig {
  connection: ConnectionSpec;
  pollIntervalMs: number;
  timeoutMs: number;
}

/** An opened inverter unit: its devices, the Modbus client, and polling under the unit's watch. */
export interface InverterUnit extends InverterOnUnit {
  /** The inverter, then its battery when the instance lists one. */
  devices: Device[];
  modbus: ModbusClient;
  /** The reply timeout: the config's, at most half the poll interval. */
  timeoutMs: number;
  /** Runs `poll` every poll interval; a silent or refusing unit marks every device unavailable. */
  startPolling(poll: (signal: AbortSignal) => Promise<void>): void;
  /** Stops watching the unit and releases the connection; return it from setup. */
  dispose: Disposer;
}

/**
 * Opens the instance's one inverter (and battery) on its Modbus unit: the devices and unit id
 * from {@link inverterOnUnit} (`defaultUnitId` when the inverter gives none), the connection
 * with a reply timeout of at most half the poll interval, and {@link watchUnit} around polls.
 *
 * @example
 * const unit = openInverterUnit(ctx, config, { plugin: 'deye' });
 * unit.startPolling(async (signal) => publish(await readRegisterMap(unit.modbus, unit.unitId, map, { signal })));
 * return unit.dispose;
 */
export function openInverterUnit(
  ctx: Pick<PluginContext, 'devices' | 'topics' | 'status' | 'log' | 'scheduler'>,
  config: InverterUnitConfig,
  { plugin, defaultUnitId }: { plugin: string; defaultUnitId?: number },
): InverterUnit {
  const onUnit = inverterOnUnit(ctx.devices, plugin, defaultUnitId);
  const timeoutMs = Math.min(config.timeoutMs, config.pollIntervalMs / 2);
  const modbus = openModbus(config.connection, { timeoutMs });
  const devices = onUnit.battery ? [onUnit.inverter, onUnit.battery] : [onUnit.inverter];
  const unit = watchUnit(ctx, { modbus, unitId: onUnit.unitId, devices });
  return {
    ...onUnit,
    devices,
    modbus,
    timeoutMs,
    startPolling(poll) {
      ctx.scheduler.every({
        name: 'poll',
        intervalMs: config.pollIntervalMs,
        run: ({ signal }) => unit.poll(() => poll(signal)),
      });
    },
    dispose() {
      unit.dispose();
      modbus.release();
    },
  };
}

/** What {@link pollRegisterMapInverter} needs beyond the config: the plugin's id and its map. */
export interface RegisterMapInverterOptions {
  plugin: string;
  map: RegisterMap;
  /** Declared with every device (manufacturer, model). */
  identity?: DeviceIdentity;
  /** The unit id when the inverter's config gives none (default 1). */
  defaultUnitId?: number;
  /** A map with a `serial` register, read before the first poll (until it succeeds) to identify every device. */
  serialMap?: RegisterMap;
}

/**
 * A whole register-map inverter driver's setup: opens the unit ({@link openInverterUnit}),
 * declares the map's metrics and settings on the inverter and the battery, and on each poll
 * reads the map and publishes both devices' values. Returns the disposer for setup to return.
 *
 * @example
 * setup: (ctx, config) => pollRegisterMapInverter(ctx, config, { plugin: 'solis', map: solisMap, identity: { manufacturer: 'Solis' } }),
 */
export function pollRegisterMapInverter(
  ctx: Pick<PluginContext, 'devices' | 'topics' | 'status' | 'log' | 'scheduler'>,
  config: InverterUnitConfig,
  { plugin, map, identity, defaultUnitId, serialMap }: RegisterMapInverterOptions,
): Disposer {
  const unit = openInverterUnit(ctx, config, { plugin, ...(defaultUnitId === undefined ? {} : { defaultUnitId }) });
  const { inverter, battery, devices, modbus, unitId, timeoutMs } = unit;
  for (const device of devices) {
    ctx.topics.declare({
      device: device.id,
      pollIntervalMs: config.pollIntervalMs,
      ...registerMapDeclarations(map, {
        device: device === inverter ? 'inverter' : 'battery',
        modbus,
        unitId,
        timeoutMs,
      }),
      ...(identity ? { identity } : {}),
    });
  }
  let identified = !serialMap;
  unit.startPolling(async (signal) => {
    if (!identified && serialMap) {
      const { inverter: id } = await readRegisterMap(modbus, unitId, serialMap, { signal });
      for (const device of devices) ctx.topics.identify({ device: device.id, identity: { serial: String(id.serial) } });
      identified = true;
    }
    const values = await readRegisterMap(modbus, unitId, map, { signal });
    ctx.topics.publish({ device: inverter.id, values: values.inverter });
    if (battery) ctx.topics.publish({ device: battery.id, values: values.battery });
  });
  return unit.dispose;
}

/** What a driver's battery control on its inverter gives the driver's wiring (from `polledBatteryControl`). */
export type InverterControl = Pick<PolledBatteryControl, 'control' | 'afterPoll' | 'stopClean'>;

/**
 * Declares each of `unit`'s devices with `map`'s metrics and settings, the inverter with
 * `control`'s battery control too; returns the declarations' disposers (to replace them once
 * the control is made, or the unit identified).
 *
 * @example
 * undeclare = declareControlled(ctx, unit, map, { pollIntervalMs, identity: { manufacturer: 'Deye' }, control: deye });
 */
export function declareControlled(
  ctx: Pick<PluginContext, 'topics'>,
  unit: Pick<InverterUnit, 'inverter' | 'devices' | 'modbus' | 'unitId' | 'timeoutMs'>,
  map: RegisterMap,
  options: { pollIntervalMs: number; identity: DeviceIdentity; control: InverterControl | null | undefined },
): Disposer[] {
  const { inverter, modbus, unitId, timeoutMs } = unit;
  return unit.devices.map((device) => {
    const kind = device === inverter ? 'inverter' : 'battery';
    const { metrics, settings } = registerMapDeclarations(map, { device: kind, modbus, unitId, timeoutMs });
    const control = kind === 'inverter' ? (options.control?.control ?? null) : null;
    return ctx.topics.declare({
      device: device.id,
      pollIntervalMs: options.pollIntervalMs,
      metrics: control ? [...metrics, ...control.metrics] : metrics,
      settings: control ? [...settings, ...control.settings] : settings,
      identity: options.identity,
    });
  });
}

/**
 * Publishes a poll's `values`, the inverter's with `control`'s (battery control's info and
 * settings as they stand), then runs the control's step after the poll with the battery's `soc`.
 *
 * @example
 * await publishControlled(ctx, unit, values, { control: deye, soc: values.battery.state_of_charge, signal });
 */
export async function publishControlled(
  ctx: Pick<PluginContext, 'topics'>,
  devices: { inverter: Device; battery?: Device | undefined },
  values: Pick<RegisterMapValues, 'inverter' | 'battery'>,
  options: { control: InverterControl | null | undefined; soc: MetricValue | undefined; signal: AbortSignal },
): Promise<void> {
  const { control, soc, signal } = options;
  ctx.topics.publish({ device: devices.inverter.id, values: { ...values.inverter, ...control?.control.values() } });
  if (devices.battery) ctx.topics.publish({ device: devices.battery.id, values: values.battery });
  await control?.afterPoll({ soc: typeof soc === 'number' ? soc : null, signal });
}

/**
 * The stop of a driver with battery control on `inverter`: Normal written while the connection
 * is still open (a failure is in the audit, and logged here), then `release` in order (the
 * unit's watch, the connection).
 *
 * @example
 * return () => stopControlled(ctx, unit.inverter, deye, unit.dispose);
 */
export async function stopControlled(
  ctx: Pick<PluginContext, 'log'>,
  inverter: Device,
  control: InverterControl | null | undefined,
  ...release: Disposer[]
): Promise<void> {
  await control
    ?.stopClean()
    .catch((err: unknown) =>
      ctx.log.warn(`${inverter.id}: could not set battery control to Normal at the stop`, { err }),
    );
  for (const dispose of release) dispose();
}
