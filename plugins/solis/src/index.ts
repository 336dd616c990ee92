/**
 * The Solis hybrid inverter driver: polls the register map over Modbus RTU (serial or an
 * RS485-over-TCP gateway) or the Solarman V5 logger (S3 Wi-Fi stick), publishes the
 * inverter's and battery's readings under the standard vocabulary and writes its settings
 * (checked by reading the register back). With the battery's limits in the config it offers
 * battery control through the inverter's remote control registers (battery-control.ts): the
 * first poll ends a forced command found on the inverter, and the stop writes Normal before
 * the connection closes.
 */
import { definePlugin, loadBatteryCommand, z } from '@heliograph/plugins-sdk';
import {
  inverterConfigFields,
  openInverterUnit,
  readRegisterMap,
  registerMapDeclarations,
  stopControlled,
  unitControl,
  unitIdDeviceConfigSchema,
} from '@heliograph/plugins-sdk/connections';
import { solisBatteryControl } from './battery-control.js';
import { solisMap } from './register-map.js';

/**
 * plugins.json `config` of a solis instance; `battery` (its limits) turns battery control on.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 9600 }, "pollIntervalMs": 5000,
 *   "battery": { "capacityKwh": 10.24, "maxChargeW": 3000, "maxDischargeW": 3000, "minSoc": 20 } }
 */
const configSchema = z.strictObject({
  ...inverterConfigFields,
});

const IDENTITY = { manufacturer: 'Solis', model: 'Hybrid' } as const;

export default definePlugin({
  id: 'solis',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  async setup(ctx, config) {
    const unit = openInverterUnit(ctx, config, { plugin: 'solis' });
    const { inverter, battery, unitId, devices, modbus, timeoutMs } = unit;
    const { pollIntervalMs } = config;
    const solis = config.battery
      ? solisBatteryControl(unitControl(ctx, unit, config.battery, await loadBatteryCommand(ctx.store)))
      : null;
    for (const device of devices) {
      const kind = device === inverter ? 'inverter' : 'battery';
      const { metrics, settings } = registerMapDeclarations(solisMap, { device: kind, modbus, unitId, timeoutMs });
      const control = kind === 'inverter' ? solis?.control : undefined;
      ctx.topics.declare({
        device: device.id,
        pollIntervalMs,
        metrics: control ? [...metrics, BATTERY_SOC, ...control.metrics] : metrics,
        settings: control ? [...settings, ...control.settings] : settings,
        identity: IDENTITY,
      });
    }

    unit.startPolling(async (signal) => {
      const values = await readRegisterMap(modbus, unitId, solisMap, { signal });
      const soc = values.battery.state_of_charge;
      const control = solis ? { ...solis.control.values(), battery_state_of_charge: soc ?? null } : {};
      ctx.topics.publish({ device: inverter.id, values: { ...values.inverter, ...control } });
      if (battery) ctx.topics.publish({ device: battery.id, values: values.battery });
      await solis?.afterPoll({ soc: typeof soc === 'number' ? soc : null, signal });
    });
    // Normal is written while the connection is still open; a failure is in the audit and here.
    return () => stopControlled(ctx, inverter, solis, unit.dispose);
  },
});

/** The state of charge on the inverter itself, for a planner that reads the controlling device. */
const BATTERY_SOC = { name: 'battery_state_of_charge', displayName: 'Battery state of charge', unit: '%' };
