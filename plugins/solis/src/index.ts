/**
 * The Solis hybrid inverter driver: polls the register map over Modbus RTU (serial or
 * an RS485-over-TCP gateway) or the Solarman V5 logger (S3 Wi-Fi stick), publishes the
 * inverter's and battery's readings under the standard vocabulary and writes its battery
 * settings (checked by reading the register back).
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';
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
import { solisMap } from './register-map.js';

/**
 * plugins.json `config` of a solis instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 9600 }, "pollIntervalMs": 5000 }
 */
const configSchema = z.strictObject({ connection: connectionSchema, ...pollingFields });

export default definePlugin({
  id: 'solis',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  setup(ctx, config) {
    const { inverter, battery, unitId } = inverterOnUnit(ctx.devices, 'solis');
    const timeoutMs = Math.min(config.timeoutMs, config.pollIntervalMs / 2);
    const modbus = openModbus(config.connection, { timeoutMs });
    const devices = battery ? [inverter, battery] : [inverter];
    const unit = watchUnit(ctx, { modbus, unitId, devices });
    for (const device of devices) {
      ctx.topics.declare({
        device: device.id,
        pollIntervalMs: config.pollIntervalMs,
        ...registerMapDeclarations(solisMap, {
          device: device === inverter ? 'inverter' : 'battery',
          modbus,
          unitId,
          timeoutMs,
        }),
        identity: { manufacturer: 'Solis', model: 'Hybrid' },
      });
    }
    const poll = async (signal: AbortSignal) => {
      const values = await readRegisterMap(modbus, unitId, solisMap, { signal });
      ctx.topics.publish({ device: inverter.id, values: values.inverter });
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
