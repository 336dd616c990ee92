/*
 * What every Modbus inverter driver hands its battery control: the unit it writes, the
 * battery's limits from the config, and the context's parts the SDK's polled control needs
 * (the core's write path, the clock, the log and the store), bound to the controlled device.
 */
import type { BatteryCommand, batteryConfigSchema } from '../battery-control.js';
import type { PluginContext, PluginStore } from '../context.js';
import type { SiteApi } from '../site.js';
import type { z } from 'zod';
import type { ModbusClient } from './modbus.js';

/** The context's parts a driver's polled battery control takes, bound to the device its settings are on. */
export interface ControlContext {
  /** The core's write path and the device the settings are on, for the start's, the lease's and the stop's Normal. */
  site: Pick<SiteApi, 'write'>;
  device: string;
  /** The site's clock. */
  now: () => number;
  /** The driver's `ctx.log.info`, the device named. */
  log: (message: string) => void;
  /** Keeps the power and target across restarts (never the mode). */
  store: PluginStore;
  /** The power and target kept before (`loadBatteryCommand`). */
  initial: BatteryCommand | undefined;
}

/** A battery control's inputs on a Modbus unit: the unit, the battery's limits and its {@link ControlContext}. */
export interface UnitControlOptions extends ControlContext {
  modbus: ModbusClient;
  unitId: number;
  timeoutMs: number;
  battery: z.output<typeof batteryConfigSchema>;
}

/**
 * The {@link ControlContext} of `device` from the plugin's context.
 *
 * @example
 * const storage = victronBatteryControl({ modbus, unitId, timeoutMs, battery, ...controlContext(ctx, inverter.id, initial) });
 */
export function controlContext(
  ctx: Pick<PluginContext, 'site' | 'now' | 'log' | 'store'>,
  device: string,
  initial: BatteryCommand | undefined,
): ControlContext {
  return {
    site: ctx.site,
    device,
    now: () => ctx.now(),
    log: (message) => ctx.log.info(`${device}: ${message}`),
    store: ctx.store,
    initial,
  };
}

/**
 * The {@link UnitControlOptions} of an opened inverter unit (`openInverterUnit`): battery
 * control on its inverter, through its Modbus client and unit id.
 *
 * @example
 * deye = deyeBatteryControl({ ...unitControl(ctx, unit, config.battery, initial), tou, ratedW });
 */
export function unitControl(
  ctx: Pick<PluginContext, 'site' | 'now' | 'log' | 'store'>,
  unit: { inverter: { id: string }; modbus: ModbusClient; unitId: number; timeoutMs: number },
  battery: z.output<typeof batteryConfigSchema>,
  initial: BatteryCommand | undefined,
): UnitControlOptions {
  const { modbus, unitId, timeoutMs } = unit;
  return { modbus, unitId, timeoutMs, battery, ...controlContext(ctx, unit.inverter.id, initial) };
}

/**
 * The {@link ControlContext} part of `options`, for `polledBatteryControl`.
 *
 * @example
 * return polledBatteryControl({ ...contextOf(args), limits, boundedOnDevice: true, read, program });
 */
export function contextOf(options: ControlContext): ControlContext {
  const { site, device, now, log, store, initial } = options;
  return { site, device, now, log, store, initial };
}
