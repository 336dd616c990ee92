/*
 * The whole plugin definition of an inverter driver whose unit is identified on the first
 * poll (deye, growatt, goodwe): what each of them wrote around its own `identify`.
 */
import type { z } from 'zod';
import type { BatteryConfig } from '../battery-control.js';
import type { DeviceIdentity, PluginContext } from '../context.js';
import type { PluginDefinition } from '../index.js';
import { pollIdentifiedInverter, type IdentifiedInverterOptions } from './identified-inverter.js';
import { unitIdDeviceConfigSchema } from './modbus-devices.js';
import { openInverterUnit, type InverterUnit, type InverterUnitConfig } from './register-map-driver.js';

/** The config an identified inverter's schema must produce: its connection, polling fields and optional battery. */
export type IdentifiedInverterConfig = InverterUnitConfig & { battery?: BatteryConfig | undefined };

/** What {@link identifiedInverterPlugin} needs from a driver. */
export interface IdentifiedInverterPluginOptions<S extends z.ZodType<IdentifiedInverterConfig>> {
  /** The plugin id, also the name the unit's errors carry. */
  id: string;
  /** Usually `z.strictObject({ ...inverterConfigFields, ... })`. */
  configSchema: S;
  /** Declared with every device from the start (the manufacturer). */
  identity: DeviceIdentity;
  /** The unit id when the inverter's device config gives none (default 1). */
  defaultUnitId?: number;
  /** Builds, once per start, the `identify` that {@link pollIdentifiedInverter} runs on the first poll. */
  identifier(ctx: PluginContext, config: z.output<S>, unit: InverterUnit): IdentifiedInverterOptions['identify'];
}

/**
 * The plugin definition of an inverter driver on one Modbus unit that reads its model on the
 * first poll: the per-device `unitId` config, {@link openInverterUnit} (with
 * `defaultUnitId`), and {@link pollIdentifiedInverter} with the config's poll interval and
 * battery around the driver's `identify`.
 *
 * @example
 * export default identifiedInverterPlugin({
 *   id: 'acme',
 *   configSchema: z.strictObject({ ...inverterConfigFields }),
 *   identity: { manufacturer: 'Acme' },
 *   identifier: (ctx, config, unit) => async (signal, control) => ({ map, control: null, identity: { model: 'X1' } }),
 * });
 */
export function identifiedInverterPlugin<S extends z.ZodType<IdentifiedInverterConfig>>(
  options: IdentifiedInverterPluginOptions<S>,
): PluginDefinition<S> {
  const { id, configSchema, identity, defaultUnitId } = options;
  return {
    id,
    configSchema,
    deviceConfigSchema: unitIdDeviceConfigSchema,
    setup(ctx, config) {
      const unit = openInverterUnit(ctx, config, {
        plugin: id,
        ...(defaultUnitId === undefined ? {} : { defaultUnitId }),
      });
      return pollIdentifiedInverter(ctx, unit, {
        pollIntervalMs: config.pollIntervalMs,
        identity,
        battery: config.battery,
        identify: options.identifier(ctx, config, unit),
      });
    },
  };
}
