/*
 * The wiring of an inverter driver that knows its register map, and can build its battery
 * control, only once it has identified the unit (its model, its rated power): declared with
 * no metrics until then, declared again with the map once identified, then polled.
 */
import type { z } from 'zod';
import { loadBatteryCommand, type batteryConfigSchema } from '../battery-control.js';
import type { DeviceIdentity, PluginContext } from '../context.js';
import type { RegisterMap } from './register-map.js';
import { readRegisterMap } from './register-map-io.js';
import {
  declareControlled,
  publishControlled,
  stopControlled,
  type InverterControl,
  type InverterUnit,
} from './register-map-driver.js';
import { unitControl, type UnitControlOptions } from './unit-control.js';

/** What a driver learnt by identifying its unit: the map to poll, the battery control it built and the unit's identity. */
export interface IdentifiedInverter {
  /** The register map every poll reads; the battery's `state_of_charge` in it drives `control`. */
  map: RegisterMap;
  /** Battery control on the inverter (null without one: no battery in the config, or a model without it). */
  control: InverterControl | null;
  /** Model and serial, for every device of the unit. */
  identity: DeviceIdentity;
}

/** How {@link pollIdentifiedInverter} polls a unit. */
export interface IdentifiedInverterOptions {
  pollIntervalMs: number;
  /** Declared with every device from the start (its manufacturer). */
  identity: DeviceIdentity;
  /** The battery's limits (the config's `battery`); without them, or without a battery device, no battery control. */
  battery: z.output<typeof batteryConfigSchema> | undefined;
  /**
   * Identifies the unit at the first poll (and at each next one until it succeeds); a
   * `ConfigError` (a model the driver does not read) stops the instance. `control`: what the
   * driver's battery control on the inverter is made from (`unitControl`, with the power and
   * target kept from before the restart), or null when there is to be none.
   */
  identify(signal: AbortSignal, control: UnitControlOptions | null): Promise<IdentifiedInverter>;
}

/**
 * Polls `unit` (from `openInverterUnit`) whose map is known once the unit is identified: every
 * device is declared with `identity` alone until then; the first poll runs `identify` (with
 * battery control's options when `battery` is given and the instance lists a battery), declares
 * the map's metrics and settings in their place (the control's on the inverter, as
 * `declareControlled` does) and identifies every device; every poll reads the map and
 * publishes it (`publishControlled`). Returns the stop for setup to return: Normal written
 * while the connection is open, then the unit released (`stopControlled`).
 *
 * @example
 * return pollIdentifiedInverter(ctx, unit, {
 *   pollIntervalMs: config.pollIntervalMs,
 *   identity: { manufacturer: 'Acme' },
 *   battery: config.battery,
 *   async identify(signal, control) {
 *     const { inverter: id } = await readRegisterMap(unit.modbus, unit.unitId, identityMap, { signal });
 *     const model = acmeModel(Number(id.device_type));
 *     return {
 *       map: model.map,
 *       control: control && acmeBatteryControl({ ...control, program: model.program }),
 *       identity: { model: model.label, serial: String(id.serial) },
 *     };
 *   },
 * });
 */
export function pollIdentifiedInverter(
  ctx: Pick<PluginContext, 'topics' | 'log' | 'site' | 'now' | 'store'>,
  unit: InverterUnit,
  options: IdentifiedInverterOptions,
): () => Promise<void> {
  const { pollIntervalMs, identity } = options;
  let undeclare = unit.devices.map((device) =>
    ctx.topics.declare({ device: device.id, pollIntervalMs, metrics: [], identity }),
  );
  let identified: IdentifiedInverter | undefined;
  unit.startPolling(async (signal) => {
    if (!identified) {
      const { battery } = options;
      const control =
        unit.battery && battery ? unitControl(ctx, unit, battery, await loadBatteryCommand(ctx.store)) : null;
      const found = await options.identify(signal, control);
      for (const off of undeclare) off();
      undeclare = declareControlled(ctx, unit, found.map, { pollIntervalMs, identity, control: found.control });
      for (const device of unit.devices) ctx.topics.identify({ device: device.id, identity: found.identity });
      identified = found;
    }
    const { map, control } = identified;
    const values = await readRegisterMap(unit.modbus, unit.unitId, map, { signal });
    await publishControlled(ctx, unit, values, { control, soc: values.battery.state_of_charge, signal });
  });
  return () => stopControlled(ctx, unit.inverter, identified?.control, unit.dispose);
}
