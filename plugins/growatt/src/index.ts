/**
 * The Growatt SPH hybrid inverter driver: polls the register map over Modbus RTU (serial or
 * an RS485-over-TCP gateway) or Modbus TCP (a ShineLAN-X or an RS485 gateway), publishes the
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
import { growattMap, identityMap } from './register-map.js';

/**
 * plugins.json `config` of a growatt instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 9600 }, "pollIntervalMs": 5000 }
 */
const configSchema = z.strictObject({ connection: connectionSchema, ...pollingFields });

export default definePlugin({
  id: 'growatt',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  setup: (ctx, config) =>
    pollRegisterMapInverter(ctx, config, {
      plugin: 'growatt',
      map: growattMap,
      identity: { manufacturer: 'Growatt', model: 'SPH' },
      serialMap: identityMap,
    }),
});
