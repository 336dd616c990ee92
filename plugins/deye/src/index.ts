/**
 * The Deye / Sunsynk single-phase hybrid inverter driver: polls the register map over Modbus
 * TCP, RTU (serial or an RS485-over-TCP gateway) or a Solarman V5 logger, publishes the
 * inverter's and battery's readings under the standard vocabulary, and writes its settings
 * (checked by reading the register back).
 */
import { batteryConfigSchema, definePlugin, inverterMetrics, loadBatteryCommand, z } from '@heliograph/plugins-sdk';
import {
  connectionSchema,
  inverterOnUnit,
  openModbus,
  pollingFields,
  readRegisterMap,
  registerMapDeclarations,
  unitIdDeviceConfigSchema,
  watchUnit,
} from '@heliograph/plugins-sdk/connections';
import { deyeBatteryControl } from './battery-control.js';
import { deyeMap, identityMap } from './register-map.js';

/**
 * plugins.json `config` of a deye instance; the inverter entry may give its Modbus `unitId`.
 *
 * @example
 * { "connection": { "type": "solarman", "host": "192.168.1.40", "loggerSerial": 2712345678 }, "pollIntervalMs": 5000 }
 */
const configSchema = z.strictObject({
  connection: connectionSchema,
  ...pollingFields,
  battery: batteryConfigSchema.optional(),
});

export default definePlugin({
  id: 'deye',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  async setup(ctx, config) {
    const { inverter, battery, unitId } = inverterOnUnit(ctx.devices, 'deye');
    const timeoutMs = Math.min(config.timeoutMs, config.pollIntervalMs / 2);
    const modbus = openModbus(config.connection, { timeoutMs });
    const devices = battery ? [inverter, battery] : [inverter];
    const unit = watchUnit(ctx, { modbus, unitId, devices });
    // Battery control through the time-of-use program, on the inverter, when the battery is described.
    const control =
      battery && config.battery
        ? deyeBatteryControl({
            modbus,
            unitId,
            timeoutMs,
            battery: config.battery,
            store: ctx.store,
            initial: await loadBatteryCommand(ctx.store),
          })
        : null;

    for (const device of devices) {
      const { metrics, settings } = registerMapDeclarations(deyeMap, {
        device: device === inverter ? 'inverter' : 'battery',
        modbus,
        unitId,
        timeoutMs,
      });
      const controlled = device.kind === 'inverter' && control;
      ctx.topics.declare({
        device: device.id,
        pollIntervalMs: config.pollIntervalMs,
        metrics:
          device.kind === 'inverter' ? [inverterMetrics.pv_power, ...metrics, ...(control?.metrics ?? [])] : metrics,
        settings: controlled ? [...settings, ...control.settings] : settings,
        identity: { manufacturer: 'Deye' },
      });
    }

    let identified = false;
    const poll = async (signal: AbortSignal) => {
      if (!identified) {
        const { inverter: id } = await readRegisterMap(modbus, unitId, identityMap, { signal });
        for (const device of devices)
          ctx.topics.identify({ device: device.id, identity: { model: String(id.model), serial: String(id.serial) } });
        identified = true;
      }
      const values = await readRegisterMap(modbus, unitId, deyeMap, { signal });
      const pv = values.inverter; // pv_power is the sum of the two strings
      ctx.topics.publish({
        device: inverter.id,
        values: { ...pv, pv_power: Number(pv.pv_power_1) + Number(pv.pv_power_2), ...control?.info },
      });
      if (battery) ctx.topics.publish({ device: battery.id, values: values.battery });
    };
    ctx.scheduler.every({
      name: 'poll',
      intervalMs: config.pollIntervalMs,
      run: ({ signal }) => unit.poll(() => poll(signal)),
    });

    return () => {
      unit.dispose();
      modbus.release();
    };
  },
});
