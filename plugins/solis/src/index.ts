/**
 * The Solis hybrid inverter driver: polls the register map over Modbus RTU (serial or
 * an RS485-over-TCP gateway) or the Solarman V5 logger (S3 Wi-Fi stick), publishes the
 * inverter's and battery's readings under the standard vocabulary and writes its battery
 * settings (checked by reading the register back).
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';
import {
  connectionSchema,
  pollingFields,
  pollRegisterMapInverter,
  unitIdDeviceConfigSchema,
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
  setup: (ctx, config) =>
    pollRegisterMapInverter(ctx, config, {
      plugin: 'solis',
      map: solisMap,
      identity: { manufacturer: 'Solis', model: 'Hybrid' },
    }),
});
