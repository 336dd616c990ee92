/**
 * The GoodWe ET / EH hybrid inverter driver: polls the register map over Modbus RTU in UDP
 * (the inverter's own Wi-Fi/LAN module on port 8899, unit 0xF7, replies prefixed AA 55) or
 * RS485 (serial or a gateway), publishes the
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
import { goodweMap } from './register-map.js';

/**
 * plugins.json `config` of a goodwe instance.
 *
 * @example
 * { "connection": { "type": "rtu-over-udp", "host": "192.168.1.60", "replyPrefix": "aa55" } } with inverter_1's unitId 247
 */
const configSchema = z.strictObject({ connection: connectionSchema, ...pollingFields });

export default definePlugin({
  id: 'goodwe',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  setup: (ctx, config) =>
    pollRegisterMapInverter(ctx, config, {
      plugin: 'goodwe',
      map: goodweMap,
      identity: { manufacturer: 'GoodWe', model: 'ET/EH' },
      // GoodWe's communication address is 0xF7 (247) unless set otherwise on the inverter.
      defaultUnitId: 0xf7,
    }),
});
